import IMAPClient
import IMAPCore
import MailSearch
import TestSupport
import Testing

/// Checks that every CR and LF in command bytes is either the CRLF that ends a line or inside the
/// bytes of a literal announced by `{n}` / `{n+}` right before a CRLF. Returns what is wrong, or nil.
func lineBreakProblem(in bytes: [UInt8]) -> String? {
    var index = 0
    var lineStart = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == 0 { return "NUL at byte \(index)" }
        if byte == UInt8(ascii: "\n") { return "bare LF at byte \(index)" }
        guard byte == UInt8(ascii: "\r") else {
            index += 1
            continue
        }
        guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") else {
            return "bare CR at byte \(index)"
        }
        let line = bytes[lineStart..<index]
        index += 2
        lineStart = index
        if index == bytes.count { return nil }
        // A CRLF before the end must follow a literal announcement.
        guard line.last == UInt8(ascii: "}"), let open = line.lastIndex(of: UInt8(ascii: "{")) else {
            return "CRLF at byte \(index - 2) is not after a literal announcement"
        }
        var digits = Array(line[(open + 1)..<(line.endIndex - 1)])
        if digits.last == UInt8(ascii: "+") { digits.removeLast() }
        guard let count = Int(String(decoding: digits, as: UTF8.self)), index + count <= bytes.count else {
            return "bad literal announcement before byte \(index)"
        }
        index += count
    }
    return bytes.count >= 2 && bytes.suffix(2) == [13, 10] ? nil : "no CRLF at the end"
}

@Suite(.hangGuard, .cpuBound) struct PropertyTests {
    static let fragments: [String] = [
        "from:", "to:", "subject:", "body:", "text:", "header:X-A=", "is:unread", "is:pinned", "is:deleted",
        "has:attachment", "after:2024-03-05", "date:2024..", "newer_than:7d", "larger:5G", "smaller:1K",
        "uid:1:*", "raw:", "in:all", "in:Archive", "OR", "AND", "NOT", "or", "-", "(", ")", "\"", "\\", "\\\"",
        " ", " ", " ", "\t", "\r", "\n", "\r\n", "\0", "a", "bob", "Müller", "パリ", "😀", "e\u{301}", "10:30",
        String(repeating: "x", count: 69), String(repeating: "é", count: 40), "{5}", "{3+}", "*", "%", "on:9999",
        "date:1000-01..9999-12-31", "newer_than:999999d",
        "older_than:99999y", "newer_than:999999m", "before:1000",
    ]

    static let servers: [Server] = [.rev1, .rev2, .literalPlus, .literalMinus, .utf8Accept, .sort, .esearch, .gmail]

    static func randomScalar(using generator: inout SeededGenerator) -> Unicode.Scalar {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &generator))
        case 1...4: return Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator))
        case 5...7: return Unicode.Scalar(UInt32.random(in: 0x80...0xFFFF, using: &generator)) ?? "?"
        default: return Unicode.Scalar(UInt32.random(in: 0x10000...0x10FFFF, using: &generator)) ?? "?"
        }
    }

    static func randomQuery(_ number: Int, using generator: inout SeededGenerator) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            if Bool.random(using: &generator) {
                text += fragments.randomElement(using: &generator)!
            } else if number.isMultiple(of: 2) {
                // Printable 7-bit.
                text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
            } else {
                text.unicodeScalars.append(randomScalar(using: &generator))
            }
        }
        return text
    }

    @Test func randomQueriesNeverBreakTheCommandLine() {
        var generator = SeededGenerator(seed: 20_240_315)
        var parsed = 0
        var literals = 0
        for number in 0..<10_000 {
            let text = Self.randomQuery(number, using: &generator)
            let query: Query
            do {
                query = try QueryParser.parse(text).query
            } catch {
                let scalarCount = text.unicodeScalars.count
                #expect((1...max(1, scalarCount)).contains(error.column ?? 1), "\(text.debugDescription)")
                continue
            }
            parsed += 1
            for server in Self.servers {
                let context = server.context
                let compiled: CompiledSearch
                do {
                    compiled = try QueryCompiler.compile(query, context: context)
                } catch {
                    continue
                }
                let plan = compiled.plan(for: context)
                for command in plan.steps.flatMap(Self.commands) {
                    let bytes = plan.encode(command, tag: "A1").flatMap(\.bytes)
                    if bytes.contains(UInt8(ascii: "{")) { literals += 1 }
                    if let problem = lineBreakProblem(in: bytes) {
                        Issue.record("\(problem) for \(text.debugDescription) on \(server): \(bytes)")
                        return
                    }
                    // What goes on the wire parses back, with IMAPCore's own command parser, to the
                    // command that was meant.
                    var cursor = ByteCursor(bytes)
                    do {
                        let parsedBack = try cursor.parseTaggedCommand()
                        #expect(parsedBack.command == command, "\(text.debugDescription) on \(server)")
                    } catch {
                        Issue.record("\(error) parsing back \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                        return
                    }
                }
                #expect(!plan.explanation.isEmpty)
            }
        }
        // The generator must reach the interesting cases, or the property says little.
        #expect(parsed > 2000)
        #expect(literals > 500)
    }

    /// The commands a step may send: its own, and the retry when the server refuses the charset.
    static func commands(of step: SearchPlan.Step) -> [Command] {
        switch step.whenCharsetRefused {
        case .retry(let retry)?: return [step.command, retry]
        case .fails?, nil: return [step.command]
        }
    }

    @Test func checkerCatchesABareLineBreak() {
        #expect(lineBreakProblem(in: Array("A1 UID SEARCH FROM \"a\rb\"\r\n".utf8)) != nil)
        #expect(lineBreakProblem(in: Array("A1 UID SEARCH FROM \"a\nb\"\r\n".utf8)) != nil)
        #expect(lineBreakProblem(in: Array("A1 UID SEARCH FROM x\r\nb\r\n".utf8)) != nil)
        #expect(lineBreakProblem(in: Array("A1 UID SEARCH FROM {3}\r\na\rb UNDELETED\r\n".utf8)) == nil)
        #expect(lineBreakProblem(in: Array("A1 UID SEARCH FROM {3+}\r\na\nb\r\n".utf8)) == nil)
    }
}
