/// What the faults that fired on one command do to it, combined: the connection driver asks
/// for them before it runs the command and applies them to the command's responses.
///
/// Several faults on one command combine: the longest delay; the first stall or respond (the
/// command is then not run); the smallest close-after; injections in rule order.
package struct FaultEffects: Sendable, Hashable {
    /// What is written instead of running the command.
    package enum Replacement: Sendable, Hashable {
        /// Nothing, ever.
        case stall
        /// `tag NO/BAD [code] text`, or `* BYE [code] text` and close.
        case respond(Fault.Status, code: String?, text: String)
    }

    /// Wait this long before writing.
    package var delay: Duration?
    /// Do not run the command; do this instead.
    package var replacement: Replacement?
    /// Close after this many bytes of the responses.
    package var closeAfterBytes: Int?
    /// Close halfway through the first literal.
    package var closesInLiteral = false
    /// One byte per write.
    package var fragments = false
    /// Untagged lines before the tagged response.
    package var injected: [UnsolicitedResponse] = []
    /// Renew a mailbox's UIDVALIDITY before running the command.
    package var changesUIDValidity = false

    /// The effects of `faults`, fired on one command.
    package init(_ faults: [Fault] = []) {
        for fault in faults {
            switch fault {
            case .delay(let duration):
                delay = max(delay ?? .zero, duration)
            case .stall:
                if replacement == nil { replacement = .stall }
            case .respond(let status, let code, let text):
                if replacement == nil { replacement = .respond(status, code: code, text: text) }
            case .closeAfter(let bytes):
                closeAfterBytes = min(closeAfterBytes ?? .max, max(0, bytes))
            case .closeInLiteral:
                closesInLiteral = true
            case .fragment:
                fragments = true
            case .inject(let responses):
                injected += responses
            case .changeUIDValidity:
                changesUIDValidity = true
            }
        }
    }

    /// No fault fired.
    package var isEmpty: Bool { self == FaultEffects() }

    /// Whether the connection closes after the responses are written.
    package var closesConnection: Bool {
        if closeAfterBytes != nil || closesInLiteral { return true }
        if case .respond(.bye, _, _) = replacement { return true }
        return false
    }

    /// The injected lines, CRLF after each.
    package var injectedBytes: [UInt8] {
        injected.flatMap { Array($0.line.utf8) + [13, 10] }
    }

    /// The response a `respond` replacement writes for the command tagged `tag`, or nil.
    package func replacementResponse(tag: String) -> [UInt8]? {
        guard case .respond(let status, let code, let text) = replacement else { return nil }
        var line = status == .bye ? "* BYE" : "\(tag) \(status.rawValue)"
        if let code { line += " [\(code)]" }
        line += " " + (text.isEmpty ? "fault injected" : text)
        return Array(line.utf8) + [13, 10]
    }

    /// How the command's responses go out: the writes, in order, and whether the connection
    /// closes after them.
    package func writes(of output: [UInt8]) -> (writes: [[UInt8]], thenClose: Bool) {
        var bytes = output[...]
        if let closeAfterBytes { bytes = bytes.prefix(closeAfterBytes) }
        if closesInLiteral, let cut = Self.middleOfFirstLiteral(in: output) { bytes = bytes.prefix(cut) }
        let writes: [[UInt8]]
        if fragments {
            writes = bytes.map { [$0] }
        } else {
            writes = bytes.isEmpty ? [] : [Array(bytes)]
        }
        return (writes, closesConnection)
    }

    /// The offset halfway through the first `{n}` literal of `bytes` (n/2 bytes of it), or nil
    /// when there is none.
    package static func middleOfFirstLiteral(in bytes: [UInt8]) -> Int? {
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            var end = index
            if end > lineStart && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if let size = literalSize(bytes[lineStart..<end]) {
                return index + 1 + size / 2
            }
            index += 1
            lineStart = index
        }
        return nil
    }

    /// `{n}` at the end of a line: n.
    private static func literalSize(_ line: ArraySlice<UInt8>) -> Int? {
        guard line.last == UInt8(ascii: "}"), let open = line.lastIndex(of: UInt8(ascii: "{")) else { return nil }
        let digits = line[(open + 1)..<(line.endIndex - 1)]
        guard !digits.isEmpty, digits.count < 19,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}
