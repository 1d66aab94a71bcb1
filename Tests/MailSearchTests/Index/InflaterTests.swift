import Testing

@testable import MailSearch

/// The index's stored text comes back exactly, through one zlib stream reused for message after
/// message (a judging loop), and anything that is not ``Deflate/packed(_:)``'s output is refused
/// (the caller then calls the index damaged) without spoiling the next message.
@Suite struct InflaterTests {
    static let texts: [[UInt8]] = [
        Array("From: Ann <ann@example.com>\r\nSubject: quarterly report\r\n\r\n".utf8),
        [],
        Array(repeating: UInt8(ascii: "x"), count: 200_000),
        (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) },
        Array("é ü 日本語 \u{1F600}".utf8),
    ]

    @Test func oneStreamGivesBackEveryTextInTurn() {
        let inflater = Inflater()
        for _ in 0..<3 {
            for text in Self.texts {
                #expect(inflater.unpacked(Deflate.packed(text)) == text)
            }
        }
    }

    @Test func whatIsNotPackedIsRefusedAndTheNextStillReads() {
        let inflater = Inflater()
        let packed = Deflate.packed(Self.texts[0])
        var longer = packed
        longer[0] &+= 1  // claims one byte more than the stream holds
        var shorter = packed
        shorter[0] &-= 1  // claims one byte less
        let cut = Array(packed.dropLast(3))
        var garbage = packed
        for index in 4..<garbage.count { garbage[index] ^= 0x5A }
        for damaged in [longer, shorter, cut, garbage, [1, 0], [9, 0, 0, 0]] {
            #expect(inflater.unpacked(damaged) == nil)
            #expect(inflater.unpacked(packed) == Self.texts[0])
        }
    }
}
