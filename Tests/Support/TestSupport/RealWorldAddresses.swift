/// Address list values that RFC 5322 forbids but real mail has, with the ENVELOPE entries
/// Dovecot 2.3 makes of each (`MailMIMETests.AddressParserTests` checks MailMIME's parser against
/// them; `MockIMAPServerTests.DifferentialTests` asks Dovecot again).
public enum RealWorldAddresses {
    /// One value and its ENVELOPE entries, as `name|mailbox@host` (`<route:>` before the
    /// mailbox), `group:name` or `end`; `-` for NIL.
    public struct Case: Sendable, CustomStringConvertible {
        public let value: String
        public let expected: [String]
        public var description: String { value }
    }

    /// What RFC 5322 forbids but real mail has, read as Dovecot reads it (each row is Dovecot
    /// 2.3's ENVELOPE for a From field with the value; `DifferentialTests` asks Dovecot again):
    /// local parts with dots at the start, at the end or two in a row (Dovecot's "non-strict
    /// dots", common in Japan), specials in display names, addresses without angle brackets or
    /// with trailing comments, and what is broken beyond reading, where the ENVELOPE shows
    /// `MISSING_MAILBOX`, `MISSING_DOMAIN`, `SYNTAX_ERROR` or `INVALID_ROUTE`. A domain is strict
    /// (`x..org`, `x.org.` are not read), and an address list stops where an address cannot be
    /// read.
    public static let cases: [Case] = [
        Case(value: #"a..b@x.org"#, expected: [#"-|a..b@x.org"#]),
        Case(value: #".a@x.org"#, expected: [#"-|.a@x.org"#]),
        Case(value: #"a.@x.org"#, expected: [#"-|a.@x.org"#]),
        Case(value: #"a.b.@x.org"#, expected: [#"-|a.b.@x.org"#]),
        Case(value: #"..@x.org"#, expected: [#"-|..@x.org"#]),
        Case(value: #"Bob <a..b@x.org>"#, expected: [#"Bob|a..b@x.org"#]),
        Case(value: #"Bob <.a@x.org>"#, expected: [#"Bob|.a@x.org"#]),
        Case(value: #"Bob <a.@x.org>"#, expected: [#"Bob|a.@x.org"#]),
        Case(value: #"John Q. Public <jqp@x.org>"#, expected: [#"John Q. Public|jqp@x.org"#]),
        Case(value: #"Smith, John <j@x.org>"#, expected: [#"-|Smith@MISSING_DOMAIN"#, #"John|j@x.org"#]),
        Case(value: #"[Company] Bob <b@x.org>"#, expected: [#"-|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"Bob (Company) <b@x.org>"#, expected: [#"Bob|b@x.org"#]),
        Case(value: #"Bob @ Home <b@x.org>"#, expected: [#"-|Bob@Home"#]),
        Case(value: #""Bob" Smith <b@x.org>"#, expected: [#"Bob Smith|b@x.org"#]),
        Case(value: #"Bob: Smith <b@x.org>"#, expected: [#"group:Bob"#, #"Smith|b@x.org"#, #"end"#]),
        Case(value: #"Bob Smith bob@x.org"#, expected: [#"Bob Smith bob|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"bob@x.org Bob"#, expected: [#"-|bob@x.org"#]),
        Case(value: #"bob@x.org (Bob Smith)"#, expected: [#"Bob Smith|bob@x.org"#]),
        Case(value: #"Bob <bob@x.org> (Work)"#, expected: [#"Bob|bob@x.org"#]),
        Case(value: #"<bob@x.org> Bob"#, expected: [#"-|bob@x.org"#]),
        Case(value: #"Bob <bob@x.org> Smith"#, expected: [#"Bob|bob@x.org"#]),
        Case(value: #"bob@x.org <bob@x.org>"#, expected: [#"-|bob@x.org"#]),
        Case(value: #"Bob.Smith <b@x.org>"#, expected: [#"Bob.Smith|b@x.org"#]),
        Case(value: #"Bob;Smith <b@x.org>"#, expected: [#"-|Bob@MISSING_DOMAIN"#]),
        Case(value: #"Bob > Smith <b@x.org>"#, expected: [#"-|Bob@MISSING_DOMAIN"#]),
        Case(value: #"Bob <b@x.org"#, expected: [#"Bob|b@SYNTAX_ERROR"#]),
        Case(value: #"Bob b@x.org>"#, expected: [#"Bob b|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"<b@x.org"#, expected: [#"-|b@SYNTAX_ERROR"#]),
        Case(value: #"bob"#, expected: [#"-|bob@MISSING_DOMAIN"#]),
        Case(value: #"Bob Smith"#, expected: [#"Bob Smith|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"@x.org"#, expected: [#"-|MISSING_MAILBOX@x.org"#]),
        Case(value: #"bob@"#, expected: [#"-|bob@MISSING_DOMAIN"#]),
        Case(value: #"Bob <>"#, expected: [#"Bob|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"<>"#, expected: [#"-|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #""bob smith"@x.org"#, expected: [#"-|bob smith@x.org"#]),
        Case(value: #"bob@[1.2.3.4]"#, expected: [#"-|bob@[1.2.3.4]"#]),
        Case(
            value: #"Bob <bob@x.org>, , c@x.org"#,
            expected: [#"Bob|bob@x.org"#, #"-|MISSING_MAILBOX@MISSING_DOMAIN"#, #"-|c@x.org"#]),
        Case(value: #"b@x.org, Carl"#, expected: [#"-|b@x.org"#, #"-|Carl@MISSING_DOMAIN"#]),
        Case(value: #""Unterminated <b@x.org>"#, expected: [#"-|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"Bob (unterminated <b@x.org>"#, expected: [#"-|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"Bob <b@x.org>>"#, expected: [#"Bob|b@x.org"#]),
        Case(value: #"Bob <<b@x.org>>"#, expected: [#"Bob|MISSING_MAILBOX@SYNTAX_ERROR"#]),
        Case(value: #"Bob <b@@x.org>"#, expected: [#"Bob|b@SYNTAX_ERROR"#]),
        Case(value: #"Bob <b@x..org>"#, expected: [#"Bob|b@SYNTAX_ERROR"#]),
        Case(value: #"Bob <b @ x . org>"#, expected: [#"Bob|b@x.org"#]),
        Case(
            value: #"Last, First <lf@x.org>, Other <o@x.org>"#,
            expected: [#"-|Last@MISSING_DOMAIN"#, #"First|lf@x.org"#, #"Other|o@x.org"#]),
        Case(value: #"Mr. Bob <b@x.org>"#, expected: [#"Mr. Bob|b@x.org"#]),
        Case(value: #"Bob <mailto:b@x.org>"#, expected: [#"Bob|mailto@SYNTAX_ERROR"#]),
        Case(value: #"b@x.org;"#, expected: [#"-|b@x.org"#]),
        Case(value: #"Bob <b@x.org>;"#, expected: [#"Bob|b@x.org"#]),
        Case(value: #"undisclosed-recipients:"#, expected: [#"group:undisclosed-recipients"#, #"end"#]),
        Case(value: #"grp: a@x.org"#, expected: [#"group:grp"#, #"-|a@x.org"#, #"end"#]),
        Case(value: #"Bob <b@x.org> <c@x.org>"#, expected: [#"Bob|b@x.org"#]),
        Case(value: #"b@x.org c@x.org"#, expected: [#"-|b@x.org"#]),
        Case(value: #"a@.x.org"#, expected: [#"-|a@MISSING_DOMAIN"#]),
        Case(value: #"a@x.org."#, expected: [#"-|a@MISSING_DOMAIN"#]),
        Case(value: #".a.@x.org"#, expected: [#"-|.a.@x.org"#]),
        Case(value: #"Bob <a@.x.org>"#, expected: [#"Bob|a@SYNTAX_ERROR"#]),
        Case(value: #"a@x..org"#, expected: [#"-|a@MISSING_DOMAIN"#]),
        Case(value: #"a@x.org.."#, expected: [#"-|a@MISSING_DOMAIN"#]),
        Case(value: #"...a...@x.org"#, expected: [#"-|...a...@x.org"#]),
        Case(value: #"Bob <...@x.org>"#, expected: [#"Bob|...@x.org"#]),
        Case(value: #". <a@x.org>"#, expected: [#"-|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #".Bob <a@x.org>"#, expected: [#"-|.Bob@MISSING_DOMAIN"#]),
        Case(value: #"Bob. <a@x.org>"#, expected: [#"Bob.|a@x.org"#]),
        Case(value: #"a@x.org, .b@x.org"#, expected: [#"-|a@x.org"#, #"-|.b@x.org"#]),
        Case(value: #".b@x.org, a@x.org"#, expected: [#"-|.b@x.org"#, #"-|a@x.org"#]),
        Case(value: #"a@x..org, b@x.org"#, expected: [#"-|a@MISSING_DOMAIN"#]),
        Case(value: #"Bob <a@x..org>, c@y.org"#, expected: [#"Bob|a@SYNTAX_ERROR"#]),
        Case(value: #". a@x.org"#, expected: [#". a|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #".a @x.org"#, expected: [#"-|.a@x.org"#]),
        Case(value: #".a(c)@x.org"#, expected: [#"c|.a@x.org"#]),
        Case(value: #"(c).a@x.org"#, expected: [#"-|.a@x.org"#]),
        Case(value: #"a . b@x.org"#, expected: [#"a. b|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"."q"@x.org"#, expected: [#". q|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #""q".a@x.org"#, expected: [#"q|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #".a@"#, expected: [#"-|.a@MISSING_DOMAIN"#]),
        Case(value: #"."#, expected: [#"-|.@MISSING_DOMAIN"#]),
        Case(value: #"a@x.org (.x)"#, expected: [#".x|a@x.org"#]),
        Case(value: #"Bob <.a.@x.org> (c)"#, expected: [#"Bob|.a.@x.org"#]),
        Case(value: #"@.a"#, expected: [#"-|MISSING_MAILBOX@MISSING_DOMAIN"#]),
        Case(value: #"Bob <@.a>"#, expected: [#"Bob|<INVALID_ROUTE:>.a@MISSING_DOMAIN"#]),
        Case(value: #".a.b.c@x.y.z"#, expected: [#"-|.a.b.c@x.y.z"#]),
        Case(value: #"<.a@x.org>"#, expected: [#"-|.a@x.org"#]),
    ]
}
