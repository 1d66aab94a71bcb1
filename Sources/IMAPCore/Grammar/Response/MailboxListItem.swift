/// A LIST or LSUB entry: `* LIST (\HasNoChildren) "." INBOX` (RFC 3501 7.2.2, RFC 9051 7.3.1).
public struct MailboxListItem: Hashable, Sendable {
    /// Name attributes such as `\HasNoChildren`, `\Noselect`, `\Sent`.
    public var attributes: [String]
    /// The hierarchy delimiter, or nil when there is none.
    public var delimiter: UInt8?
    /// The mailbox name as sent.
    public var name: MailboxName
    /// RFC 5258 extended data (`("CHILDINFO" ("SUBSCRIBED"))`, `("OLDNAME" ...)`), kept as raw
    /// bytes.
    public var extendedData: ByteString?

    public init(attributes: [String], delimiter: UInt8?, name: MailboxName, extendedData: ByteString? = nil) {
        self.attributes = attributes
        self.delimiter = delimiter
        self.name = name
        self.extendedData = extendedData
    }

    /// Whether the mailbox can be selected.
    public var isSelectable: Bool {
        !attributes.contains { $0.caseInsensitiveCompare("\\Noselect") || $0.caseInsensitiveCompare("\\NonExistent") }
    }
}

extension String {
    func caseInsensitiveCompare(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
