import Foundation
import IMAPCore
import MailSearch
import Testing

/// The stored form of what a list shows of a message (kept in the index for the next list).
@Suite struct CachedMessageTests {
    static func message(_ uid: UInt32, subject: String? = nil) -> CachedMessage {
        let email = Email(
            id: Email.ID(mailbox: "INBOX", uidValidity: 7, uid: uid),
            from: Email.Person(name: uid % 2 == 0 ? "Grace Jones" : nil, address: "grace\(uid)@example.com"),
            to: [Email.Person(name: "Алиса", address: "alice@example.com"), Email.Person(name: nil, address: "b@x")],
            cc: uid % 3 == 0 ? [Email.Person(name: "日本 太郎", address: "taro@example.jp")] : [],
            subject: subject ?? "Invoice #\(uid) — naïve 📎",
            date: Date(timeIntervalSince1970: 1_700_000_000 + Double(uid)),
            preview: "quarterly calendar \(uid)", flags: [.seen], hasAttachment: uid % 5 == 0, size: Int(uid) * 1000)
        return CachedMessage(email)
    }

    @Test(arguments: [1, 2, 3, 10, 15] as [UInt32]) func theStoredFormReadsBackAsItWas(uid: UInt32) throws {
        let message = Self.message(uid)
        let bytes = message.encoded()
        #expect(CachedMessage(uid: uid, decoding: bytes) == message)
        // Cut anywhere, or with a byte more, or of another version: not read.
        for length in 0..<bytes.count {
            #expect(CachedMessage(uid: uid, decoding: bytes.prefix(length)) == nil, "cut at \(length)")
        }
        #expect(CachedMessage(uid: uid, decoding: bytes + [0]) == nil)
        #expect(CachedMessage(uid: uid, decoding: [2] + bytes.dropFirst()) == nil)
        // The email it makes carries the flags given, not the ones it was made with.
        let email = message.email(mailbox: "INBOX", uidValidity: 7, flags: [.flagged, .recent], pinFlag: .flagged)
        #expect(email.flags == [.flagged] && email.isPinned && !email.isRead)
        #expect(CachedMessage(email) == message)
    }

    @Test func aHugeCountOrLengthIsABrokenRecordNotACrash() {
        // Version, from: no name, address of length 2^63 (LEB128).
        let hugeLength: [UInt8] = [1, 0] + Array(repeating: 0xFF, count: 8) + [0x7F]
        #expect(CachedMessage(uid: 1, decoding: hugeLength) == nil)
        // Version, from "a", then a count of 2^62 people.
        let hugeCount: [UInt8] = [1, 0, 1, 0x61] + Array(repeating: 0xFF, count: 8) + [0x3F]
        #expect(CachedMessage(uid: 1, decoding: hugeCount) == nil)
    }
}
