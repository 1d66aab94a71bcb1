/// A return option of LIST-EXTENDED (RFC 5258 3.2, RFC 5819 LIST-STATUS, RFC 6154 SPECIAL-USE).
///
/// `C: a LIST "" "*" RETURN (SPECIAL-USE STATUS (MESSAGES UNSEEN))` asks for special-use attributes
/// and a STATUS of every listed mailbox.
public enum ListReturnOption: Hashable, Sendable {
    /// `SUBSCRIBED`: mark subscribed mailboxes.
    case subscribed
    /// `CHILDREN`: report `\HasChildren` / `\HasNoChildren`.
    case children
    /// `SPECIAL-USE`: report special-use attributes (`\Sent`, `\Trash`, ...).
    case specialUse
    /// `STATUS (attributes)`: a STATUS response for each listed mailbox (RFC 5819).
    case status([StatusAttribute])
}

extension ByteCursor {
    // return-option = "SUBSCRIBED" / "CHILDREN" / status-option / "SPECIAL-USE"
    // status-option = "STATUS" SP "(" status-att *(SP status-att) ")"
    /// One LIST return option.
    public mutating func parseListReturnOption() throws(IMAPParseError) -> ListReturnOption {
        let start = index
        let name = String(decoding: try parseAtom(), as: UTF8.self).uppercased()
        switch name {
        case "SUBSCRIBED": return .subscribed
        case "CHILDREN": return .children
        case "SPECIAL-USE": return .specialUse
        case "STATUS":
            try expectSpace()
            return .status(
                try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> StatusAttribute in
                    try cursor.parseStatusAttribute()
                })
        default:
            index = start
            throw error(.unexpectedByte, "unknown LIST return option \(name)")
        }
    }

    // list-return-opts = "RETURN" SP "(" [return-option *(SP return-option)] ")"
    /// The parenthesized LIST return options (after `RETURN SP`).
    public mutating func parseListReturnOptions() throws(IMAPParseError) -> [ListReturnOption] {
        try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> ListReturnOption in
            try cursor.parseListReturnOption()
        }
    }
}

extension EncodeBuffer {
    /// Writes a LIST return option.
    public mutating func write(_ option: ListReturnOption) {
        switch option {
        case .subscribed: writeRaw("SUBSCRIBED")
        case .children: writeRaw("CHILDREN")
        case .specialUse: writeRaw("SPECIAL-USE")
        case .status(let attributes):
            writeRaw("STATUS ")
            writeList(attributes) { buffer, attribute in buffer.write(attribute) }
        }
    }
}
