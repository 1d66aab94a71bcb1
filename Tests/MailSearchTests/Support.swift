import IMAPCore
import MailSearch

/// Server kinds the tables run against; today is 2024-03-15 as in the spec.
enum Server: String, Sendable, CaseIterable {
    case rev1
    case rev2
    case literalPlus
    case literalMinus
    case utf8Accept
    case sort
    case esearch
    case within
    case gmail
    case hasAttachmentKeyword
    case pinKeyword
    case pinKeywordRefused

    static let today = IMAPDate(year: 2024, month: 3, day: 15)!

    var context: SearchContext {
        switch self {
        case .rev1: return SearchContext(today: Self.today)
        case .rev2: return SearchContext(capabilities: [.imap4rev2], today: Self.today)
        case .literalPlus: return SearchContext(capabilities: [.imap4rev1, .literalPlus], today: Self.today)
        case .literalMinus: return SearchContext(capabilities: [.imap4rev1, .literalMinus], today: Self.today)
        case .utf8Accept:
            return SearchContext(
                capabilities: [.imap4rev1, .enable, .utf8Accept], enabledCapabilities: [.utf8Accept], today: Self.today)
        case .sort: return SearchContext(capabilities: [.imap4rev1, .sort, .esearch], today: Self.today)
        case .esearch: return SearchContext(capabilities: [.imap4rev1, .esearch], today: Self.today)
        case .within: return SearchContext(capabilities: [.imap4rev1, .within], today: Self.today)
        case .gmail: return SearchContext(capabilities: [.imap4rev1, .gmailExtensions], today: Self.today)
        case .hasAttachmentKeyword:
            return SearchContext(
                capabilities: [.imap4rev1, .gmailExtensions], mailboxFlags: [.seen, .flagged, "$HasAttachment"],
                today: Self.today)
        case .pinKeyword:
            return SearchContext(
                permanentFlags: [.seen, .flagged, .wildcard], flagPolicy: FlagPolicy(pinKeyword: "$Pinned"),
                today: Self.today)
        case .pinKeywordRefused:
            return SearchContext(
                permanentFlags: [.seen, .flagged], flagPolicy: FlagPolicy(pinKeyword: "$Pinned"), today: Self.today)
        }
    }
}
