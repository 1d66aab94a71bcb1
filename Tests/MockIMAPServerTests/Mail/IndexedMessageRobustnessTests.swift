import Foundation
import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

/// No input makes parsing or any IMAP view crash: the tricky messages mutated at random (with a
/// fixed seed), and random bytes. `MAILSEARCH_FUZZ_ROUNDS` runs more mutations (default 2000).
@Suite(.hangGuard, .cpuBound) struct IndexedMessageRobustnessTests {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }

        mutating func below(_ limit: Int) -> Int { Int(next() % UInt64(max(1, limit))) }
    }

    /// Bytes that matter to the parsers, so mutations hit interesting places.
    static let interesting: [UInt8] = Array("-\r\n:;=\"\\()<>@,.?*%' \t\u{0}".utf8) + [0x80, 0xC3, 0xE9, 0xFF]

    static func mutate(_ bytes: [UInt8], _ generator: inout Generator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<(1 + generator.below(8)) {
            let position = generator.below(bytes.count + 1)
            switch generator.below(4) {
            case 0 where position < bytes.count:
                bytes[position] = interesting[generator.below(interesting.count)]
            case 1:
                bytes.insert(interesting[generator.below(interesting.count)], at: position)
            case 2 where position < bytes.count:
                bytes.removeSubrange(position..<min(bytes.count, position + 1 + generator.below(16)))
            default:
                // Duplicate a stretch (boundaries, headers) somewhere else.
                let start = generator.below(bytes.count + 1)
                let stretch = Array(bytes[start..<min(bytes.count, start + generator.below(64))])
                bytes.insert(contentsOf: stretch, at: min(position, bytes.count))
            }
        }
        return bytes
    }

    static func exercise(_ bytes: [UInt8]) {
        let message = IndexedMessage(bytes: bytes)
        _ = message.envelope
        _ = message.bodyStructure(extensible: true)
        _ = message.bodyStructure(extensible: false)
        for path: [UInt32] in [[], [1], [2], [1, 1], [2, 1], [3, 2, 1]] {
            _ = message.binarySection(path)
            for kind: SectionSpecifier.Kind in [.complete, .header, .text, .mime, .headerFields(["FROM"])]
            where !(path.isEmpty && kind == .mime) {
                _ = message.section(SectionSpecifier(part: path, kind: kind))
            }
        }
        _ = message.headerText("subject")
        _ = message.matchesSubstring("é", in: message.bodyText)
    }

    @Test func mutatedMessages() {
        var generator = Generator(state: 7)
        let rounds = Int(ProcessInfo.processInfo.environment["MAILSEARCH_FUZZ_ROUNDS"] ?? "") ?? 2000
        for round in 0..<rounds {
            let base = TrickyMessages.all[round % TrickyMessages.all.count].bytes
            Self.exercise(Self.mutate(base, &generator))
        }
    }

    @Test func randomBytes() {
        var generator = Generator(state: 11)
        for _ in 0..<300 {
            let bytes = (0..<generator.below(2000)).map { _ in
                generator.below(3) == 0
                    ? Self.interesting[generator.below(Self.interesting.count)]
                    : UInt8(truncatingIfNeeded: generator.next())
            }
            Self.exercise(bytes)
        }
    }
}
