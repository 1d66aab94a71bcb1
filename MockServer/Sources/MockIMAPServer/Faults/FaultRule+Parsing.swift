extension FaultRule {
    /// A rule from the syntax of `mock-imap-server --fault`:
    ///
    /// ```
    /// UID STORE#2=NO [UNAVAILABLE] try later     the 2nd UID STORE gets NO [UNAVAILABLE] try later
    /// SELECT@bob=BAD no                          every SELECT of bob gets BAD
    /// LOGIN#1=BYE [UNAVAILABLE] maintenance      * BYE, then close, on the first LOGIN
    /// delay=200ms                                every command answered 200 ms late (= *=delay:200ms)
    /// FETCH=delay:2s                             every FETCH response 2 s late
    /// SEARCH=stall                               SEARCH never answered
    /// FETCH#1=close-after:100                    close after 100 bytes of the first FETCH's responses
    /// UID FETCH=close-in-literal                 close halfway through the first literal
    /// fragment                                   every command answered one byte per write
    /// NOOP#1=inject:* 3 EXPUNGE|* 5 EXISTS       untagged lines before the first NOOP's OK
    /// uidvalidity-change                         each LOGOUT renews the selected mailbox's UIDVALIDITY
    /// SELECT#2=uidvalidity-change                the 2nd SELECT's mailbox gets a new UIDVALIDITY first
    /// ```
    public init(parsing text: String) throws(MockServerError) {
        let spec = text.trimmingSpaces
        guard !spec.isEmpty else { throw Self.syntaxError(text, "it is empty") }
        if spec.lowercased().hasPrefix("delay=") {
            self.init(trigger: .everyCommand, fault: .delay(try Self.duration(String(spec.dropFirst(6)), in: text)))
            return
        }
        if let equals = spec.firstIndex(of: "="), let trigger = try Self.trigger(String(spec[..<equals]), in: text) {
            self.init(trigger: trigger, fault: try Self.fault(String(spec[spec.index(after: equals)...]), in: text))
            return
        }
        let fault = try Self.fault(spec, in: text)
        // Alone, a UIDVALIDITY change happens "between sessions": when one logs out.
        self.init(trigger: fault == .changeUIDValidity ? .command("LOGOUT") : .everyCommand, fault: fault)
    }

    /// `COMMAND[#N][@USER]` or `*`; nil when `text` is not a trigger (then it is part of a fault).
    private static func trigger(_ text: String, in spec: String) throws(MockServerError) -> FaultTrigger? {
        var rest = text.trimmingSpaces
        let upper = rest.uppercased()
        for status in Fault.Status.allCases where upper == status.rawValue || upper.hasPrefix(status.rawValue + " ") {
            return nil
        }
        var user: String?
        if let at = rest.firstIndex(of: "@") {
            user = String(rest[rest.index(after: at)...]).trimmingSpaces
            rest = String(rest[..<at])
            guard user?.isEmpty == false else { throw syntaxError(spec, "@ needs a user name") }
        }
        var occurrence: Int?
        if let hash = rest.firstIndex(of: "#") {
            let number = String(rest[rest.index(after: hash)...]).trimmingSpaces
            guard let value = Int(number), value >= 1 else {
                throw syntaxError(spec, "#N takes an occurrence from 1, not \"\(number)\"")
            }
            occurrence = value
            rest = String(rest[..<hash])
        }
        let name = rest.trimmingSpaces
        if name == "*" { return FaultTrigger(occurrence: occurrence, user: user) }
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == " " }) else { return nil }
        return .command(name, occurrence: occurrence, user: user)
    }

    private static func fault(_ text: String, in spec: String) throws(MockServerError) -> Fault {
        let fault = text.trimmingSpaces
        let lower = fault.lowercased()
        switch lower {
        case "stall": return .stall
        case "fragment": return .fragment
        case "close-in-literal": return .closeInLiteral
        case "uidvalidity-change": return .changeUIDValidity
        default: break
        }
        if lower.hasPrefix("delay:") {
            return .delay(try duration(String(fault.dropFirst(6)), in: spec))
        }
        if lower.hasPrefix("close-after:") {
            let number = String(fault.dropFirst(12)).trimmingSpaces
            guard let bytes = Int(number), bytes >= 0 else {
                throw syntaxError(spec, "close-after takes a number of bytes, not \"\(number)\"")
            }
            return .closeAfter(bytes: bytes)
        }
        if lower.hasPrefix("inject:") {
            let lines = fault.dropFirst(7).split(separator: "|").map { String($0).trimmingSpaces }
            guard !lines.isEmpty, lines.allSatisfy({ $0.hasPrefix("* ") }) else {
                throw syntaxError(spec, "inject takes untagged lines separated by |, like \"* 3 EXPUNGE\"")
            }
            return .inject(lines.map(UnsolicitedResponse.line))
        }
        let words = fault.split(separator: " ", maxSplits: 1).map(String.init)
        if let first = words.first, let status = Fault.Status(rawValue: first.uppercased()) {
            var rest = words.count > 1 ? words[1].trimmingSpaces : ""
            var code: String?
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw syntaxError(spec, "[CODE has no ]") }
                code = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = String(rest[rest.index(after: close)...]).trimmingSpaces
                guard code?.isEmpty == false else { throw syntaxError(spec, "[] needs a response code") }
            }
            return .respond(status, code: code, text: rest.isEmpty ? "fault injected" : rest)
        }
        throw syntaxError(spec, "\"\(fault)\" is not a fault")
    }

    /// `200ms`, `2s`, or `200` (milliseconds).
    private static func duration(_ text: String, in spec: String) throws(MockServerError) -> Duration {
        let value = text.trimmingSpaces.lowercased()
        if value.hasSuffix("ms"), let number = Int(value.dropLast(2)), number >= 0 { return .milliseconds(number) }
        if value.hasSuffix("s"), let number = Double(value.dropLast()), number >= 0 {
            return .milliseconds(Int(number * 1000))
        }
        if let number = Int(value), number >= 0 { return .milliseconds(number) }
        throw syntaxError(spec, "a delay is a number with ms or s, like 200ms, not \"\(text)\"")
    }

    private static func syntaxError(_ spec: String, _ reason: String) -> MockServerError {
        MockServerError(
            .invalidFault,
            "fault \"\(spec)\": \(reason); use [COMMAND[#N][@USER]=]FAULT, the faults are listed in mock-imap-server --help"
        )
    }
}
