import Foundation
import MailMIME
import TestSupport
import Testing

/// The case folding tables of CaseFoldingTable.swift are `CaseFolding.computeFold` of every scalar
/// below U+10000, written down once. This test checks every one of them against the Unicode
/// properties of the running Swift, and writes the tables again when asked:
///
///     MAILSEARCH_WRITE_CASE_FOLDING_TABLE=Sources/MailMIME/Message/CaseFoldingTable.swift \
///         swift test --filter CaseFoldingTableTests
@Suite(.hangGuard) struct CaseFoldingTableTests {
    @Test func theTablesFoldEveryScalarBelowU10000AsTheUnicodePropertiesDo() throws {
        if let path = ProcessInfo.processInfo.environment["MAILSEARCH_WRITE_CASE_FOLDING_TABLE"] {
            try Self.source().write(toFile: path, atomically: true, encoding: .utf8)
        }
        var wrong: [String] = []
        for value in UInt32(0)..<0x10000 {
            let expected = Unicode.Scalar(value).map { CaseFolding.computeFold($0).value } ?? value
            let folded = CaseFolding.tableFold(value)
            if folded != expected {
                wrong.append("U+\(String(value, radix: 16, uppercase: true)): \(folded) instead of \(expected)")
            }
        }
        #expect(
            wrong.count == 0,
            """
            \(wrong.count) scalars fold differently from the Unicode properties (the Swift runtime's \
            Unicode version changed?), first \(wrong.prefix(5)); write the tables again (see \
            CaseFoldingTableTests)
            """)
    }

    @Test func aFoldBelowU10000StaysBelowU10000() {
        for value in UInt32(0x80)..<0x10000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let folded = CaseFolding.computeFold(scalar).value
            #expect(folded < 0x10000, "U+\(String(value, radix: 16)) folds to U+\(String(folded, radix: 16))")
        }
    }

    /// CaseFoldingTable.swift: for each high byte, its block's number (0: every scalar of the
    /// block folds to itself), and the folds of the blocks that have any other.
    static func source() -> String {
        var numbers: [UInt8] = []
        var blocks: [UInt16] = []
        for high in UInt32(0)..<256 {
            let folds = (UInt32(0)..<256).map { low -> UInt16 in
                let value = high << 8 | low
                let folded = Unicode.Scalar(value).map { CaseFolding.computeFold($0).value } ?? value
                return UInt16(folded < 0x10000 ? folded : value)
            }
            if folds.enumerated().allSatisfy({ UInt32($0.element) == high << 8 | UInt32($0.offset) }) {
                numbers.append(0)
            } else {
                blocks += folds
                numbers.append(UInt8(blocks.count / 256))
            }
        }
        func lines(_ values: [some BinaryInteger], perLine: Int, digits: Int) -> String {
            stride(from: 0, to: values.count, by: perLine).map { start in
                "        "
                    + values[start..<min(values.count, start + perLine)].map {
                        let hex = String($0, radix: 16, uppercase: true)
                        return "0x" + String(repeating: "0", count: max(0, digits - hex.count)) + hex + ","
                    }.joined(separator: " ")
            }.joined(separator: "\n")
        }
        return """
            // Written by CaseFoldingTableTests from the Unicode properties (CaseFolding.computeFold);
            // do not edit: write it again as that test says.

            extension CaseFolding {
                /// For each high byte of a scalar below U+10000, its block's number in `foldBlocks`
                /// (counting from 1), or 0 when every scalar of the block folds to itself.
                static let foldBlockNumbers: [UInt8] = [
            \(lines(numbers, perLine: 16, digits: 2))
                ]

                /// The fold of every scalar of the blocks that have one folding elsewhere, 256 a block.
                static let foldBlocks: [UInt16] = [
            \(lines(blocks, perLine: 12, digits: 4))
                ]
            }

            """
    }
}
