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

    /// `tag LOGIN user password` becomes `tag LOGIN *** ***`; `tag AUTHENTICATE mech initial`
    /// becomes `tag AUTHENTICATE mech ***`; every line after an AUTHENTICATE (the SASL
    /// continuation answers) is replaced by `***` until the next line that starts a new command.
    /// Other bytes pass unchanged.
    public static func redactCredentials(in bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var lineStart = 0
        var inAuthentication = false
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            let hasNewline = lineEnd < bytes.count
            let line = Array(bytes[lineStart..<lineEnd])
            let words = line.split(separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: false)
            let verb = words.count > 1 ? String(decoding: words[1], as: UTF8.self).uppercased() : ""
            if verb == "LOGIN" && words.count > 2 {
                output += Array(words[0]) + Array(" LOGIN ***".utf8)
                if line.last == UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
                inAuthentication = false
            } else if verb == "AUTHENTICATE" && words.count > 2 {
                output += Array(words[0]) + Array(" AUTHENTICATE ".utf8)
                output += Array(words[2]).filter { $0 != UInt8(ascii: "\r") }
                if words.count > 3 { output += Array(" ***".utf8) }
                if line.last == UInt8(ascii: "\r") { output.append(UInt8(ascii: "\r")) }
                inAuthentication = true
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

    private static func looksLikeCommand(_ line: [UInt8]) -> Bool {
        // A SASL answer is one base64 token (or "*"); a command has a tag, a space and a name.
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return false }
        return space > 0 && space + 1 < line.count && isASCIILetter(line[space + 1])
    }
}
