extension MailSummary {
    /// One mailbox of From, To or Cc, decoded: the name, the address and the initials a mail
    /// list shows in its avatar.
    ///
    /// ```
    /// MailSummary.Person(name: "Albus Dumbledore", address: "albus@hogwarts.example").initials   // "AD"
    /// ```
    public struct Person: Hashable, Sendable {
        /// The display name, RFC 2047 decoded and white space collapsed; nil when there is none.
        public var name: String?
        /// `mailbox@host`; only the part that is there when the server marked one missing.
        public var address: String
        /// One or two upper-case letters for an avatar (``initials(name:address:)``), computed
        /// when asked for: a listing of thousands that never shows avatars does not pay for them.
        public var initials: String { Self.initials(name: name, address: address) }

        /// A person; the initials are computed.
        public init(name: String?, address: String) {
            let name = name.flatMap { $0.isEmpty ? nil : $0 }
            self.name = name
            self.address = address
        }

        /// The person of an envelope address: the name decoded with ``MailSummary/decodedText(_:)``,
        /// the server's markers for missing parts (`MISSING_MAILBOX`, `MISSING_DOMAIN`,
        /// `SYNTAX_ERROR`) left out of the address; nil for a group marker (no host).
        public init?(envelopeAddress address: MailEnvelope.Address) {
            self.init(name: address.name?[...], mailbox: address.mailbox?[...], host: address.host?[...])
        }

        /// The person of an address's raw parts, as an IMAP ENVELOPE carries them (slices of the
        /// parsed response: nothing is copied out first); the same decoding as
        /// ``init(envelopeAddress:)``.
        public init?(name: ArraySlice<UInt8>?, mailbox: ArraySlice<UInt8>?, host: ArraySlice<UInt8>?) {
            guard let host else { return nil }
            var address = mailbox.map { MailSummary.decodedText($0) } ?? ""
            let domain = MailSummary.decodedText(host)
            if address == "MISSING_MAILBOX" { address = "" }
            if domain != "MISSING_DOMAIN", domain != "SYNTAX_ERROR", !domain.isEmpty {
                if !address.isEmpty { address += "@" }
                address += domain
            }
            self.init(name: name.map { MailSummary.decodedText($0) }, address: address)
        }

        /// The initials for a name and address, upper-cased, at most two letters:
        ///
        /// - the first letters of the first and last words of the name ("Albus Percival
        ///   Dumbledore" -> "AD"); one word gives one letter ("Mcgonagall" -> "M");
        /// - "Last, First" is read as "First Last" ("Dumbledore, Albus" -> "AD");
        /// - a word's letter is its first letter or digit, so quotes and brackets are skipped and
        ///   words without one (emoji, dashes) do not count; letters of any script count ("Zoë
        ///   Ünal" -> "ZÜ", "山田 太郎" -> "山太");
        /// - without a usable name, the first letter or digit of the address ("x@y" -> "X");
        ///   "" when there is none.
        public static func initials(name: String?, address: String) -> String {
            var text = name ?? ""
            let sides = text.split(separator: ",", omittingEmptySubsequences: false)
            if sides.count == 2, sides.allSatisfy({ $0.contains(where: \.isLetter) }) {
                // "Last, First Middle" -> "First Middle Last"
                text = sides[1] + " " + sides[0]
            }
            let words = text.split(whereSeparator: { $0.isWhitespace })
            let letters = words.compactMap(firstLetter)
            if let first = letters.first {
                return letters.count > 1 ? upper(first) + upper(letters[letters.count - 1]) : upper(first)
            }
            return firstLetter(address).map(upper) ?? ""
        }

        private static func firstLetter(_ word: some StringProtocol) -> Character? {
            word.first { $0.isLetter || $0.isNumber }
        }

        /// The upper case of a letter, kept to one character ("ß" -> "S", not "SS").
        private static func upper(_ character: Character) -> String {
            character.uppercased().first.map(String.init) ?? String(character)
        }
    }
}
