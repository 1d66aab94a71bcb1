/// A selection option of LIST-EXTENDED (RFC 5258 3.1, RFC 6154 SPECIAL-USE).
///
/// `C: a LIST (SUBSCRIBED) "" "*"` lists only subscribed mailboxes.
public enum ListSelectOption: Hashable, Sendable, CaseIterable {
    /// `SUBSCRIBED`: only subscribed mailboxes.
    case subscribed
    /// `REMOTE`: include remote mailboxes.
    case remote
    /// `RECURSIVEMATCH`: report parents of matching children.
    case recursiveMatch
    /// `SPECIAL-USE`: only mailboxes with a special use (RFC 6154).
    case specialUse

    /// The name as it goes on the wire.
    public var name: String {
        switch self {
        case .subscribed: return "SUBSCRIBED"
        case .remote: return "REMOTE"
        case .recursiveMatch: return "RECURSIVEMATCH"
        case .specialUse: return "SPECIAL-USE"
        }
    }
}

extension ByteCursor {
    // list-select-opt = list-select-base-opt / list-select-independent-opt / list-select-mod-opt
    // list-select-base-opt = "SUBSCRIBED" / "SPECIAL-USE"
    // list-select-independent-opt = "REMOTE"
    // list-select-mod-opt = "RECURSIVEMATCH"
    /// One LIST selection option.
    public mutating func parseListSelectOption() throws(IMAPParseError) -> ListSelectOption {
        let start = index
        let name = String(decoding: try parseAtom(), as: UTF8.self).uppercased()
        guard let option = ListSelectOption.allCases.first(where: { $0.name == name }) else {
            index = start
            throw error(.unexpectedByte, "unknown LIST selection option \(name)")
        }
        return option
    }
}

extension EncodeBuffer {
    /// Writes a LIST selection option.
    public mutating func write(_ option: ListSelectOption) { writeRaw(option.name) }
}
