import IMAPCore
import Testing

@Suite struct SequenceSetTests {
    @Test func numbersAreCompressedIntoRanges() {
        let set = SequenceSet(numbers: [5, 1, 2, 3, 900, 901, 1200, 902, 3, 502])
        #expect(set.description == "1:3,5,502,900:902,1200")
        #expect(set.count == 10 - 1)
        #expect(set.contains(901) && !set.contains(4))
    }

    @Test func rangesAreSortedAndMerged() {
        let set = SequenceSet([
            SequenceRange(10...12), SequenceRange(1...4), SequenceRange(5...6), SequenceRange(11...20),
        ])
        #expect(set.description == "1:6,10:20")
        #expect(SequenceSet([SequenceRange(.number(4), .number(2))]).description == "2:4")
        #expect(SequenceSet([SequenceRange(.number(7), .last), SequenceRange(1...3)]).description == "1:3,7:*")
        #expect(SequenceSet.all.description == "1:*")
        #expect(SequenceSet.lastSearchResult.description == "$")
    }

    @Test(arguments: ["1", "1:*", "*", "2,4:7,9,12:*", "$", "1:3,5"]) func parsesAndEncodes(wire: String) throws {
        var cursor = ByteCursor(wire)
        let set = try cursor.parseSequenceSet()
        #expect(cursor.isAtEnd)
        #expect(set.description == wire)
    }

    @Test(arguments: ["1", "1:*", "*", "2,4:7,9,12:*", "1:3,5", "3:5,8,10:11,20", "7", "2,4,6,8,10,12,14", "5:*"])
    func membershipIsWhatTheRangesSay(wire: String) throws {
        var cursor = ByteCursor(wire)
        let set = try cursor.parseSequenceSet()
        // Every number from 0 to 25, with `*` as each largest from 1 to 25 (a `*` below the
        // range's first number makes the range run down to it).
        for largest in UInt32(1)...25 {
            for value in UInt32(0)...25 {
                let expected = set.ranges.contains { range in
                    let first =
                        range.first == .last ? largest : { if case .number(let n) = range.first { n } else { 0 } }()
                    let last =
                        range.last == .last ? largest : { if case .number(let n) = range.last { n } else { 0 } }()
                    return min(first, last) <= value && value <= max(first, last)
                }
                #expect(set.contains(value, largest: largest) == expected, "\(wire) \(value) largest \(largest)")
            }
        }
        let scattered = SequenceSet(numbers: (1...2000).filter { $0 % 3 != 0 }.map { UInt32($0) })
        for value in UInt32(0)...2001 {
            #expect(scattered.contains(value) == (value >= 1 && value <= 2000 && value % 3 != 0))
        }
    }

    @Test func twentyThousandScatteredUIDsSplitIntoBoundedCommands() {
        let uids = (1...40_000).filter { $0 % 2 == 0 }.map { UInt32($0) }
        let set = SequenceSet(numbers: uids)
        let pieces = set.split(maximumEncodedLength: 8000)
        #expect(pieces.count > 1)
        for piece in pieces { #expect(piece.description.utf8.count <= 8000) }
        #expect(pieces.flatMap { $0.numbers ?? [] } == uids)
    }
}

@Suite struct EncodeBufferTests {
    struct StringCase: Sendable, CustomTestStringConvertible {
        let value: String
        let options: EncodingOptions
        let chunks: [String]
        let waits: [Bool]
        var testDescription: String { value.debugDescription }
    }

    static let cases: [StringCase] = [
        .init(value: "alice@example.com", options: .init(), chunks: ["\"alice@example.com\""], waits: [false]),
        .init(value: "say \"hi\"", options: .init(), chunks: ["\"say \\\"hi\\\"\""], waits: [false]),
        .init(value: "C:\\temp", options: .init(), chunks: ["\"C:\\\\temp\""], waits: [false]),
        .init(value: "Müller", options: .init(), chunks: ["{7}\r\n", "Müller"], waits: [true, false]),
        .init(value: "Müller", options: .init(literalMode: .literalPlus), chunks: ["{7+}\r\nMüller"], waits: [false]),
        .init(value: "Müller", options: .init(literalMode: .literalMinus), chunks: ["{7+}\r\nMüller"], waits: [false]),
        .init(value: "Müller", options: .init(utf8Quoted: true), chunks: ["\"Müller\""], waits: [false]),
        .init(value: "a\r\nb", options: .init(utf8Quoted: true), chunks: ["{4}\r\n", "a\r\nb"], waits: [true, false]),
        .init(
            value: String(repeating: "x", count: 71), options: .init(),
            chunks: ["{71}\r\n", String(repeating: "x", count: 71)], waits: [true, false]),
        .init(
            value: String(repeating: "x", count: 70), options: .init(),
            chunks: ["\"" + String(repeating: "x", count: 70) + "\""], waits: [false]),
        .init(
            value: String(repeating: "y", count: 5000), options: .init(literalMode: .literalMinus),
            chunks: ["{5000}\r\n", String(repeating: "y", count: 5000)], waits: [true, false]),
    ]

    @Test(arguments: cases) func choosesQuotedOrLiteral(testCase: StringCase) {
        var buffer = EncodeBuffer(options: testCase.options)
        buffer.writeString(ByteString(testCase.value))
        let chunks = buffer.takeChunks()
        #expect(chunks.map { String(decoding: $0.bytes, as: UTF8.self) } == testCase.chunks)
        #expect(chunks.map(\.waitsForContinuation) == testCase.waits)
    }

    @Test func astringUsesAnAtomWhenItCan() {
        var buffer = EncodeBuffer()
        buffer.writeAString("INBOX")
        buffer.writeSpace()
        buffer.writeAString("Sent Items")
        buffer.writeSpace()
        buffer.writeAString("")
        buffer.writeSpace()
        buffer.writeAString("NIL")
        #expect(String(decoding: buffer.takeBytes(), as: UTF8.self) == "INBOX \"Sent Items\" \"\" \"NIL\"")
    }

    @Test func optionsFollowCapabilities() {
        #expect(EncodingOptions.client(capabilities: [.imap4rev1]).literalMode == .synchronizing)
        #expect(EncodingOptions.client(capabilities: [.imap4rev1, .literalPlus]).literalMode == .literalPlus)
        #expect(EncodingOptions.client(capabilities: [.imap4rev2]).literalMode == .literalMinus)
        #expect(EncodingOptions.client(capabilities: [.imap4rev2]).utf8Quoted)
        #expect(EncodingOptions.client(capabilities: [.imap4rev1], utf8Enabled: true).utf8Quoted)
        #expect(!EncodingOptions.client(capabilities: [.imap4rev1]).utf8Quoted)
    }
}

@Suite struct DateTests {
    @Test(arguments: [
        ("5-Mar-2024", 2024, 3, 5), ("\"29-Feb-2024\"", 2024, 2, 29), ("01-jan-1999", 1999, 1, 1),
        ("31-DEC-2023", 2023, 12, 31),
    ]) func parsesDates(wire: String, year: Int, month: Int, day: Int) throws {
        var cursor = ByteCursor(wire)
        #expect(try cursor.parseDate() == IMAPDate(year: year, month: month, day: day))
    }

    @Test(arguments: ["30-Feb-2024", "29-Feb-2023", "0-Jan-2024", "5-Foo-2024", "5-Mar-24"])
    func rejectsImpossibleDates(wire: String) {
        var cursor = ByteCursor(wire)
        #expect(throws: IMAPParseError.self) { try cursor.parseDate() }
        #expect(cursor.index == 0)
    }

    @Test func formatsAndComputesDays() throws {
        let date = try #require(IMAPDate(year: 2024, month: 3, day: 15))
        #expect(date.description == "15-Mar-2024")
        #expect(date.adding(days: -7).description == "8-Mar-2024")
        #expect(date.adding(days: 17).description == "1-Apr-2024")
        #expect(IMAPDate(daysSinceEpoch: 0).description == "1-Jan-1970")
        #expect(date.daysSinceEpoch == 19797)
    }

    @Test func dateTimeParsesFormatsAndConvertsToEpoch() throws {
        var cursor = ByteCursor("\" 1-Dec-2023 00:13:23 -0130\"")
        let dateTime = try cursor.parseDateTime()
        #expect(dateTime.zoneMinutes == -90)
        #expect(dateTime.description == "01-Dec-2023 00:13:23 -0130")
        #expect(dateTime.secondsSinceEpoch == 1_701_389_603 + 90 * 60)
    }
}

@Suite struct FlagTests {
    @Test func systemFlagsAreCanonicalAndCaseInsensitive() throws {
        #expect(Flag("\\SEEN") == .seen)
        #expect(Flag("\\SEEN").rawValue == "\\Seen")
        #expect(Flag("$pinned") == Flag("$Pinned"))
        #expect(Set([Flag("$Pinned"), Flag("$PINNED")]).count == 1)
        var cursor = ByteCursor("(\\Seen \\flagged $Label1 \\*)")
        #expect(try cursor.parseFlagList() == [.seen, .flagged, "$Label1", .wildcard])
    }

    @Test func capabilitiesCompareCaseInsensitively() {
        #expect(Capability("literal+") == .literalPlus)
        #expect(Capability("AUTH=PLAIN").authenticationMechanism == "PLAIN")
        #expect(Capability("IDLE").authenticationMechanism == nil)
    }

    @Test func mailboxNamesTreatInboxCaseInsensitively() {
        #expect(MailboxName(wire: "inbox") == .inbox)
        #expect(MailboxName(wire: "Inbox").isInbox)
        #expect(MailboxName(wire: "INBOX.Sent") != .inbox)
    }
}

/// A quote, backslash, CR, LF or NUL at any position of strings of every length up to 40 ends
/// or breaks a quoted string exactly where it should.
@Suite struct QuotedStringTests {
    /// Whether the parser refuses `bytes` (throws) rather than returning a string.
    static func refuses(_ bytes: [UInt8]) -> Bool {
        if case .failure = parse(bytes) { return true }
        return false
    }

    static func parse(_ bytes: [UInt8]) -> Result<[UInt8], IMAPParseError> {
        var cursor = ByteCursor(bytes)
        do throws(IMAPParseError) {
            return .success(Array(try cursor.parseQuoted().bytes))
        } catch {
            return .failure(error)
        }
    }

    @Test func everyLengthAndEveryPositionOfASpecialByte() throws {
        for length in 0...40 {
            let plain = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            // Closed: the content comes back whole, and what follows the quote is not read.
            #expect(try Self.parse([0x22] + plain + [0x22, 0x22, 0x41]).get() == plain, "length \(length)")
            // Not closed.
            #expect(Self.refuses([0x22] + plain), "length \(length) unclosed")
            for position in 0..<length {
                var text = plain
                // An escaped quote: kept as a quote, the string goes on.
                text.replaceSubrange(position..<position + 1, with: [0x5C, 0x22])
                var expected = plain
                expected[position] = 0x22
                #expect(try Self.parse([0x22] + text + [0x22]).get() == expected, "escape at \(position)/\(length)")
                // A quote ends the string there.
                var cut = plain
                cut[position] = 0x22
                #expect(try Self.parse([0x22] + cut + [0x22]).get() == Array(plain[..<position]))
                // CR, LF and NUL are refused wherever they are.
                for refused: UInt8 in [0x0D, 0x0A, 0x00] {
                    var bad = plain
                    bad[position] = refused
                    #expect(
                        Self.refuses([0x22] + bad + [0x22]), "\(refused) at \(position)/\(length)")
                }
                // Other bytes, 8-bit ones too, are content.
                var high = plain
                high[position] = 0xE9
                #expect(try Self.parse([0x22] + high + [0x22]).get() == high)
            }
        }
    }
}

@Suite struct ByteStringTests {
    @Test func caseInsensitiveEqualityFoldsLettersOnly() {
        let text = ByteString(Array("Text-Plain".utf8))
        #expect(text.equalsCaseInsensitive("text-plain") && text.equalsCaseInsensitive("TEXT-PLAIN"))
        // '-' and '\r' differ by 0x20 too, but only letters fold; lengths must agree.
        #expect(!text.equalsCaseInsensitive("text\rplain"))
        #expect(!text.equalsCaseInsensitive("text-plai") && !text.equalsCaseInsensitive("text-plains"))
        #expect(!text.equalsCaseInsensitive("next-plain"))
    }

    /// A date-time from seconds since 1970 and a zone: the RFC 3501 form, and back to the same
    /// instant, before 1970 too; a zone past +-99:59 is held at the limit.
    @Test(arguments: [
        (1_709_643_900, 60, "05-Mar-2024 14:05:00 +0100"), (0, 0, "01-Jan-1970 00:00:00 +0000"),
        (-1, 0, "31-Dec-1969 23:59:59 +0000"), (1_709_643_900, -420, "05-Mar-2024 06:05:00 -0700"),
        (951_782_400, 0, "29-Feb-2000 00:00:00 +0000"),
    ])
    func dateTimeFromSecondsSinceEpoch(seconds: Int, zone: Int, text: String) {
        let dateTime = IMAPDateTime(secondsSinceEpoch: seconds, zoneMinutes: zone)
        #expect(dateTime.description == text)
        #expect(dateTime.secondsSinceEpoch == seconds)
        #expect(IMAPDateTime(secondsSinceEpoch: 0, zoneMinutes: 200 * 60).zoneMinutes == 99 * 60 + 59)
    }
}

/// An envelope shares one box between copies (see `Envelope`): a change to a copy is the copy's
/// alone, and equality and hashing look at the fields, shared box or not.
@Suite struct EnvelopeValueTests {
    private let grace = Address(name: "Grace Jones", mailbox: "grace", host: "example.com")

    @Test func aChangeToACopyLeavesTheOriginalAsItWas() {
        let original = Envelope(subject: "Lunch", from: [grace], messageID: "<1@example.com>")
        var copy = original
        copy.subject = "Dinner"
        copy.from.append(Address(name: nil, mailbox: "bob", host: "example.org"))
        copy.messageID = nil
        #expect(original.subject == "Lunch")
        #expect(original.from == [grace])
        #expect(original.messageID == "<1@example.com>")
        #expect(copy.subject == "Dinner")
        #expect(copy.from.count == 2)
        #expect(copy.messageID == nil)
        #expect(copy != original)
    }

    @Test func equalFieldsInSeparateBoxesAreEqualAndHashAlike() {
        let first = Envelope(date: "Mon, 1 Jan 2024 10:00:00 +0000", subject: "Lunch", from: [grace], to: [grace])
        let second = Envelope(date: "Mon, 1 Jan 2024 10:00:00 +0000", subject: "Lunch", from: [grace], to: [grace])
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        var changed = second
        changed.to = []
        #expect(changed != first)
        #expect(Set([first, changed]).count == 2)
    }
}
