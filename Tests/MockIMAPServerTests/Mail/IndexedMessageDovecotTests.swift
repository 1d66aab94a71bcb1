import Foundation
import IMAPClient
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// The IMAP views of `IndexedMessage` against a real Dovecot 2.3 serving the same messages:
/// ENVELOPE, BODYSTRUCTURE, BODY, RFC822.SIZE, BODY[HEADER], BODY[TEXT], BODY[1], BODY[1.MIME],
/// BINARY[1] and PREVIEW (and BODY[2], [2.MIME], [2.HEADER], [2.TEXT], [2.1], HEADER.FIELDS,
/// HEADER.FIELDS.NOT and BINARY[]) of a few hundred generated messages
/// (scripts/generate-maildir.py) and of the hand-written `TrickyMessages`.
///
/// Skipped, with this message, only where Dovecot is not installed and
/// `MAILSEARCH_REQUIRE_DOVECOT` is not 1. `MAILSEARCH_DIFF_MESSAGES` sets how many messages are
/// generated (default 300).
///
/// Where Dovecot departs from the RFCs the test expects the RFC and skips the comparison; each
/// case is listed in `departures` with the reason.
@Suite(
    .hangGuard,
    .enabled("Dovecot is not installed (apt-get install dovecot-imapd)") { try DovecotMailbox.isAvailable() })
struct IndexedMessageDovecotTests {
    static let generatedCount =
        Int(ProcessInfo.processInfo.environment["MAILSEARCH_DIFF_MESSAGES"] ?? "") ?? 300

    /// A message in the test mailbox.
    struct Stored {
        let name: String
        let bytes: [UInt8]
        let isTricky: Bool
    }

    /// Comparisons skipped because Dovecot departs from the RFC (message name, item, reason).
    static let departures: [(message: String, item: String, reason: String)] = [
        (
            "truncated base64 text", "BINARY[1]",
            "Dovecot fails the whole FETCH (\"Base64 data ends prematurely\", then BYE); RFC 3516 has no such"
                + " failure, and the mock server returns the bytes the incomplete base64 holds"
        ),
        (
            "no MIME-Version ignores Content-Transfer-Encoding", "BINARY[1]",
            "without MIME-Version or Content-Type a message is not MIME (RFC 2045 section 4), so its"
                + " Content-Transfer-Encoding means nothing; Dovecot ignores it in BODYSTRUCTURE (\"7bit\") but"
                + " still decodes base64 for BINARY and PREVIEW"
        ),
        ("no MIME-Version ignores Content-Transfer-Encoding", "PREVIEW", "as for BINARY[1]"),
        ("no MIME-Version ignores Content-Transfer-Encoding", "BINARY[]", "as for BINARY[1]"),
        ("truncated base64 text", "BINARY[]", "as for BINARY[1]"),
        ("quoted-printable and base64 edge cases", "BINARY[]", "as for BINARY[1]"),
        (
            "header without body or final line break", "BODY[HEADER.FIELDS (FROM TO SUBJECT DATE X-NOT-THERE)]",
            "HEADER.FIELDS of a message ends with the blank line, also without a body (issue 11; Dovecot adds it"
                + " when it parses the message: `SectionTests`); here Dovecot answers from its cache, filled by"
                + " the ENVELOPE fetched before, and leaves it out when the header's last line has no line break"
        ),
        (
            "quoted-printable and base64 edge cases", "BINARY[1]",
            "Dovecot refuses to decode quoted-printable with a malformed escape (\"=ZZ\"); RFC 2045 6.7 asks"
                + " robust decoders to keep such an \"=\" and the characters after it, as the mock server does"
        ),
        (
            "Content-Type edge cases", "BODYSTRUCTURE",
            "`Content-Type: text` has no subtype: RFC 2045 5.2 recommends reading a syntactically invalid"
                + " Content-Type as the default, text/plain; charset=us-ascii, as the mock server does; Dovecot"
                + " answers (\"text\" \"\" ...), and (\"\" \"\" NIL ...) when parameters follow"
                + " (`DifferentialTests.pythonEmailCorpusMatchesDovecot`, msg_14)"
        ),
        ("Content-Type edge cases", "BODY", "as for BODYSTRUCTURE"),
        (
            "multipart/digest", "PREVIEW",
            "a part without Content-Type in a multipart/digest is message/rfc822 (RFC 2046 5.1.5), and a preview"
                + " does not look into encapsulated messages; Dovecot's preview takes it for text/plain"
        ),
    ]

    @Test func viewsEqualDovecotsForGeneratedAndTrickyMessages() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mailsearch-indexed-\(UUID())")
        let maildir = work.appendingPathComponent("box")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        _ = try await DovecotMailbox.run(
            "/usr/bin/env",
            [
                "python3", DovecotMailbox.script("generate-maildir.py"), "--out", maildir.path, "--count",
                "\(Self.generatedCount)", "--seed", "7",
            ])
        let cur = maildir.appendingPathComponent("cur")
        for (index, message) in TrickyMessages.all.enumerated() {
            // Later than every generated message, so these get the last UIDs.
            let file = cur.appendingPathComponent("\(1_800_000_000 + index).\(index).tricky:2,")
            try Data(message.bytes).write(to: file)
        }
        var stored: [Stored] = []
        let trickyNames = Dictionary(
            uniqueKeysWithValues: TrickyMessages.all.enumerated().map {
                ("\(1_800_000_000 + $0.offset)", $0.element.name)
            })
        for file in try FileManager.default.contentsOfDirectory(atPath: cur.path).sorted() {
            let bytes = [UInt8](try Data(contentsOf: cur.appendingPathComponent(file)))
            let prefix = String(file.prefix { $0 != "." })
            stored.append(Stored(name: trickyNames[prefix] ?? file, bytes: bytes, isTricky: trickyNames[prefix] != nil))
        }

        let dovecot = try await DovecotMailbox.start(maildir: maildir.path)
        let fetched: [[UInt8]: (UInt32, FetchResponse)]
        let binaries: [[UInt32]: [UInt32: [UInt8]?]]
        do {
            fetched = try await fetchEverything(from: dovecot, count: stored.count)
            binaries = try await fetchBinaries(from: dovecot, stored: stored, uids: fetched)
        } catch {
            await dovecot.stop()
            throw error
        }
        await dovecot.stop()

        var compared = 0
        var mismatches: [String] = []
        for message in stored {
            let indexed = IndexedMessage(bytes: message.bytes)
            guard let (uid, response) = fetched[indexed.bytes] else {
                mismatches.append("\(message.name): Dovecot has no message with these bytes (CRLF line endings)")
                continue
            }
            compared += 1
            mismatches += compare(
                indexed, with: response, binaries: Self.binaryPaths.map { ($0, binaries[$0]?[uid]) }, name: message.name
            )
        }
        #expect(compared == stored.count)
        #expect(compared >= Self.generatedCount + TrickyMessages.all.count)
        #expect(
            mismatches.isEmpty, "\(mismatches.count) differences:\n\(mismatches.prefix(25).joined(separator: "\n"))")
    }

    /// Sections compared beyond the ones the brief names: a second part (often message/rfc822,
    /// with its HEADER, TEXT and inner parts) and header field selections.
    static let extraSections: [SectionSpecifier] = [
        SectionSpecifier(part: [2]), SectionSpecifier(part: [2], kind: .mime),
        SectionSpecifier(part: [2], kind: .header),
        SectionSpecifier(part: [2], kind: .text), SectionSpecifier(part: [2, 1]),
        SectionSpecifier(part: [2], kind: .headerFields(["FROM", "SUBJECT"])),
        SectionSpecifier(kind: .headerFields(["FROM", "TO", "SUBJECT", "DATE", "X-NOT-THERE"])),
        SectionSpecifier(kind: .headerFieldsNot(["RECEIVED", "SUBJECT", "MIME-VERSION"])),
    ]

    /// `UID FETCH 1:n (UID ENVELOPE BODYSTRUCTURE BODY RFC822.SIZE BODY.PEEK[] BODY.PEEK[HEADER]
    /// BODY.PEEK[TEXT] BODY.PEEK[1] BODY.PEEK[1.MIME] PREVIEW)`, keyed by the message bytes.
    private func fetchEverything(
        from dovecot: DovecotMailbox, count: Int
    ) async throws
        -> [[UInt8]: (UInt32, FetchResponse)]
    {
        let session = try await dovecot.session()
        let items: [FetchAttribute] =
            [
                .uid, .envelope, .bodyStructure(extensions: true), .bodyStructure(extensions: false), .rfc822Size,
                .bodySection(peek: true, section: .complete, partial: nil),
                .bodySection(peek: true, section: .header, partial: nil),
                .bodySection(peek: true, section: .text, partial: nil),
                .bodySection(peek: true, section: SectionSpecifier(part: [1]), partial: nil),
                .bodySection(peek: true, section: SectionSpecifier(part: [1], kind: .mime), partial: nil),
                .preview(lazy: false),
            ] + Self.extraSections.map { .bodySection(peek: true, section: $0, partial: nil) }
        var result: [[UInt8]: (UInt32, FetchResponse)] = [:]
        do {
            for try await response in session.fetch(SequenceSet(numbers: 1...UInt32(count)), items: items) {
                guard let uid = response.uid, let whole = response.bodySection(.complete) else { continue }
                result[Array(whole.bytes)] = (uid, response)
            }
        } catch {
            await session.logout()
            throw error
        }
        await session.logout()
        return result
    }

    /// The BINARY sections compared: the first part, and the whole message (every part decoded).
    static let binaryPaths: [[UInt32]] = [[1], []]

    /// `BINARY.PEEK[1]` and `BINARY.PEEK[]` of every message: in one FETCH for the generated ones,
    /// one by one for the tricky ones (a failure ends Dovecot's session). Nil where Dovecot
    /// refused.
    private func fetchBinaries(
        from dovecot: DovecotMailbox, stored: [Stored], uids: [[UInt8]: (UInt32, FetchResponse)]
    ) async throws -> [[UInt32]: [UInt32: [UInt8]?]] {
        var result: [[UInt32]: [UInt32: [UInt8]?]] = [:]
        var plain: [UInt32] = []
        var tricky: [UInt32] = []
        for message in stored {
            guard let (uid, _) = uids[IndexedMessage(bytes: message.bytes).bytes] else { continue }
            if message.isTricky { tricky.append(uid) } else { plain.append(uid) }
        }
        var session = try await dovecot.session()
        for path in Self.binaryPaths {
            let item = FetchAttribute.binary(peek: true, part: path, partial: nil)
            for try await response in session.fetch(SequenceSet(numbers: plain), items: [item]) {
                if let uid = response.uid { result[path, default: [:]][uid] = binaryData(response) }
            }
            for uid in tricky {
                do {
                    for try await response in session.fetch(SequenceSet(uid), items: [item]) {
                        if response.uid == uid { result[path, default: [:]][uid] = binaryData(response) }
                    }
                } catch {
                    result[path, default: [:]][uid] = .some(nil)
                    await session.logout()
                    session = try await dovecot.session()
                }
            }
        }
        await session.logout()
        return result
    }

    private func binaryData(_ response: FetchResponse) -> [UInt8]? {
        for case .binary(_, _, let data) in response.attributes { return data.map { Array($0.bytes) } ?? [] }
        return nil
    }

    private func isDeparture(_ name: String, _ item: String) -> Bool {
        Self.departures.contains { $0.message == name && $0.item == item }
    }

    /// The differences between our views of a message and Dovecot's.
    private func compare(
        _ indexed: IndexedMessage, with response: FetchResponse, binaries: [([UInt32], [UInt8]??)], name: String
    )
        -> [String]
    {
        var differences: [String] = []
        func check<T: Equatable>(_ item: String, _ ours: T, _ theirs: T?) {
            guard !isDeparture(name, item) else { return }
            if ours != theirs {
                differences.append(
                    "\(name): \(item)\n  ours:    \(ours)\n  Dovecot: \(theirs.map { "\($0)" } ?? "nil")")
            }
        }
        func checkBytes(_ item: String, _ ours: [UInt8], _ theirs: [UInt8]) {
            guard !isDeparture(name, item), ours != theirs else { return }
            let common = zip(ours, theirs).prefix { $0 == $1 }.count
            let start = max(0, common - 40)
            func excerpt(_ bytes: [UInt8]) -> String {
                String(decoding: bytes[min(start, bytes.count)..<min(bytes.count, common + 60)], as: UTF8.self)
                    .debugDescription
            }
            differences.append(
                "\(name): \(item) (\(ours.count) vs \(theirs.count) bytes, first difference at \(common))\n"
                    + "  ours:    \(excerpt(ours))\n  Dovecot: \(excerpt(theirs))")
        }
        check("ENVELOPE", indexed.envelope, response.envelope)
        var bodyStructure: BodyStructure?
        var body: BodyStructure?
        for attribute in response.attributes {
            if case .bodyStructure(let value) = attribute { bodyStructure = value }
            if case .body(let value) = attribute { body = value }
        }
        check("BODYSTRUCTURE", indexed.bodyStructure(extensible: true), bodyStructure)
        check("BODY", indexed.bodyStructure(extensible: false), body)
        check("RFC822.SIZE", UInt64(indexed.size), response.size)
        for section in [
            SectionSpecifier.header, .text, SectionSpecifier(part: [1]), SectionSpecifier(part: [1], kind: .mime),
        ] + Self.extraSections {
            // Dovecot sends "" for a part that does not exist; the mock server's API says nil.
            let theirs = response.bodySection(section).map { Array($0.bytes) }
            let ours = indexed.section(section) ?? []
            check(
                "BODY\(section)", String(decoding: ours, as: UTF8.self).debugDescription,
                theirs.map { String(decoding: $0, as: UTF8.self).debugDescription })
            if let theirs, ours != theirs,
                String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self)
            {
                differences.append("\(name): BODY\(section) differs in bytes that are not UTF-8")
            }
        }
        for (path, binary) in binaries {
            let item = "BINARY[\(path.map(String.init).joined(separator: "."))]"
            if let binary, let theirs = binary {
                checkBytes(item, indexed.binary(path) ?? [], theirs)
            } else if !isDeparture(name, item) {
                // Dovecot refused (unknown transfer encoding): so must we.
                if case .success = indexed.binarySection(path) {
                    differences.append("\(name): \(item): Dovecot refused, ours succeeded")
                }
            }
        }
        // PREVIEW: RFC 8970 leaves the text to the server ("fuzzy"); the mock server makes it the
        // way Dovecot does, and for these messages the two are identical.
        check("PREVIEW", indexed.preview, response.preview?.string ?? "")
        return differences
    }
}
