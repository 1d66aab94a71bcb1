import Foundation
import MailSearch
import TestSupport
import Testing

@testable import MailSearchCLI

/// The people file read before a command's output and updated after it: the early read is used
/// only while the file is unchanged, so counts another process saved meanwhile are kept.
@Suite(.hangGuard) struct PeopleStoreTests {
    static func email(_ uid: UInt32, from address: String) -> Email {
        Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 1, uid: uid),
            from: Email.Person(name: nil, address: address), subject: "s", date: Date(timeIntervalSince1970: 0))
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("people-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aSnapshotOfAnUnchangedFileCountsLikeAFreshRead() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = PeopleStore(directory: directory)
        try store.record([Self.email(1, from: "ann@example.com")], account: "a")
        let snapshot = store.snapshot()
        try store.record([Self.email(2, from: "ann@example.com")], account: "a", startingFrom: snapshot)
        #expect(store.index(account: "a").frequency(of: "ann@example.com") == 2)
    }

    @Test func aFileReplacedAfterTheSnapshotIsReadAgain() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = PeopleStore(directory: directory)
        try store.record([Self.email(1, from: "ann@example.com")], account: "a")
        let snapshot = store.snapshot()
        // Another process counts two more messages meanwhile.
        try store.record(
            [Self.email(2, from: "bob@example.com"), Self.email(3, from: "ann@example.com")], account: "a")
        try store.record([Self.email(4, from: "ann@example.com")], account: "a", startingFrom: snapshot)
        let index = store.index(account: "a")
        #expect(index.frequency(of: "ann@example.com") == 3)
        #expect(index.frequency(of: "bob@example.com") == 1)
    }

    @Test func aFileCreatedAfterASnapshotOfNoFileIsReadAgain() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = PeopleStore(directory: directory)
        let snapshot = store.snapshot()
        try store.record([Self.email(1, from: "bob@example.com")], account: "a")
        try store.record([Self.email(2, from: "ann@example.com")], account: "a", startingFrom: snapshot)
        #expect(store.index(account: "a").frequency(of: "bob@example.com") == 1)
        #expect(store.index(account: "a").frequency(of: "ann@example.com") == 1)
    }

    /// A file the previous version wrote (Foundation's JSONEncoder: slashes escaped) is read,
    /// its counts and the messages it counted kept; what is saved now reads back the same.
    @Test func aFileOfThePreviousWriterIsReadAndKept() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old =
            #"{"accounts":{"a":{"people":{"ann@example.com":3,"Ann \u00c9":1},"seen":["INBOX\/1\/1"]}},"version":1}"#
        try Data(old.utf8).write(to: directory.appendingPathComponent(PeopleStore.fileName))
        let store = PeopleStore(directory: directory)
        #expect(store.index(account: "a").frequency(of: "ann@example.com") == 3)
        #expect(store.index(account: "a").frequency(of: "Ann É") == 1)
        // UID 1 (INBOX/1/1) was counted already; UID 2 is new.
        try store.record(
            [Self.email(1, from: "ann@example.com"), Self.email(2, from: "ann@example.com")], account: "a")
        #expect(store.index(account: "a").frequency(of: "ann@example.com") == 4)
        #expect(store.index(account: "a").frequency(of: "Ann É") == 1)
    }

    /// A file that is not the format (another version, a wrong type, not JSON) counts as empty.
    @Test(arguments: [
        #"{"accounts":{},"version":2}"#, #"{"accounts":{"a":{"people":{"x":"2"},"seen":[]}},"version":1}"#,
        #"{"accounts":{"a":{"people":{"x":2}}},"version":1}"#, #"{"version":1}"#, "not json", "",
    ])
    func aFileNotOfTheFormatCountsAsEmpty(text: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(text.utf8).write(to: directory.appendingPathComponent(PeopleStore.fileName))
        let store = PeopleStore(directory: directory)
        #expect(store.index(account: "a").frequency(of: "x") == 0)
        try store.record([Self.email(1, from: "ann@example.com")], account: "a")
        #expect(store.index(account: "a").frequency(of: "ann@example.com") == 1)
    }
}
