extension Command {
    /// Whether the command carries a credential: LOGIN's user name and password, AUTHENTICATE's
    /// initial response (and the SASL answers that follow it). Every chunk such a command is
    /// written in (the line, and each literal on its own) is hidden wherever client bytes are
    /// shown: the protocol trace and the mock server's transcripts.
    public var carriesCredentials: Bool {
        switch self {
        case .login, .authenticate: return true
        default: return false
        }
    }
}

/// Removes secrets from client bytes before they are shown anywhere.
public enum Redaction {
    /// What a trace shows in place of a command that carries credentials, decided from the
    /// command, not from its bytes (which a literal splits): `M1 LOGIN ***`,
    /// `M1 AUTHENTICATE PLAIN ***`, `M1 AUTHENTICATE PLAIN` without an initial response.
    public static func shownText(of command: TaggedCommand) -> String {
        switch command.command {
        case .login: return "\(command.tag) LOGIN ***"
        case .authenticate(let mechanism, let initialResponse):
            let shownMechanism = String(mechanism.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 }.prefix(40))
            return "\(command.tag) AUTHENTICATE \(shownMechanism)" + (initialResponse == nil ? "" : " ***")
        default: return "\(command.tag) \(command.command.name) ***"
        }
    }

    /// `tag LOGIN user password` becomes `tag LOGIN ***`; `tag AUTHENTICATE mech initial`
    /// becomes `tag AUTHENTICATE mech ***`; every line after an AUTHENTICATE (the SASL
    /// continuation answers) is replaced by `***` until the next line that starts a new command.
    /// A literal such a line announces (`tag LOGIN {5}` CRLF `alice {6}` CRLF `secret`) and the
    /// rest of the command after it are left out: they are the user name and the password.
    /// Words may be separated by any run of spaces or controls, so a malformed LOGIN is still
    /// recognised. Other bytes pass unchanged.
    ///
    /// For bytes whose command is not known (a frame a parser refused, an excerpt of one); where
    /// the command is known, `shownText(of:)` decides from it.
    public static func redactCredentials(in bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var lineStart = 0
        var inAuthentication = false
        // Bytes of a literal announced inside LOGIN or AUTHENTICATE, still to be left out.
        var hiddenLiteral: Int?
        while lineStart < bytes.count {
            if let size = hiddenLiteral {
                // The literal, then the rest of its command line (which may announce another).
                let afterLiteral = min(bytes.count, lineStart + size)
                var lineEnd = afterLiteral
                while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                hiddenLiteral = lineEnd < bytes.count ? literalSize(endingLine: bytes[afterLiteral..<lineEnd]) : nil
                lineStart = lineEnd + 1
                continue
            }
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            let hasNewline = lineEnd < bytes.count
            let line = Array(bytes[lineStart..<lineEnd])
            let words = line.split(maxSplits: 3, omittingEmptySubsequences: true) { $0 <= 0x20 || $0 == 0x7F }
            let verb = words.count > 1 ? String(decoding: words[1], as: UTF8.self).uppercased() : ""
            if verb == "LOGIN" && words.count > 2 {
                output += Array(words[0]) + Array(" LOGIN ***".utf8)
                if line.last == UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
                inAuthentication = false
                hiddenLiteral = literalSize(endingLine: line[...])
            } else if verb == "AUTHENTICATE" && words.count > 2 {
                output += Array(words[0]) + Array(" AUTHENTICATE ".utf8) + Array(words[2])
                if words.count > 3 { output += Array(" ***".utf8) }
                if line.last == UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
                inAuthentication = true
                hiddenLiteral = literalSize(endingLine: line[...])
            } else if inAuthentication && !looksLikeCommand(line) {
                output += Array("***".utf8)
                if line.last == UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
            } else {
                output += line
                inAuthentication = false
            }
            if hasNewline { output.append(UInt8(ascii: "\n")) }
            lineStart = lineEnd + 1
        }
        return output
    }

    /// The size of the literal `{n}`, `{n+}` or `{n-}` that ends `line` (before its CR), if any.
    private static func literalSize(endingLine line: ArraySlice<UInt8>) -> Int? {
        var end = line.endIndex
        if end > line.startIndex && line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end > line.startIndex, line[end - 1] == UInt8(ascii: "}") else { return nil }
        var position = end - 2
        if position >= line.startIndex && (line[position] == UInt8(ascii: "+") || line[position] == UInt8(ascii: "-")) {
            position -= 1
        }
        var size = 0
        var multiplier = 1
        var digits = 0
        while position >= line.startIndex && line[position] >= UInt8(ascii: "0") && line[position] <= UInt8(ascii: "9")
        {
            guard digits < 18 else { return nil }
            size += Int(line[position] - UInt8(ascii: "0")) * multiplier
            multiplier *= 10
            digits += 1
            position -= 1
        }
        guard digits > 0, position >= line.startIndex, line[position] == UInt8(ascii: "{") else { return nil }
        return size
    }

    private static func looksLikeCommand(_ line: [UInt8]) -> Bool {
        // A SASL answer is one base64 token (or "*"); a command has a tag, a space and a name.
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return false }
        return space > 0 && space + 1 < line.count && isASCIILetter(line[space + 1])
    }
}
