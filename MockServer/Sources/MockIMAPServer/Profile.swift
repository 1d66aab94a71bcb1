public import IMAPCore

/// Which capabilities the mock server announces, so that clients' fallbacks get tested
/// (`../shared/specs/mock-server.md`, "Profiles").
public enum Profile: String, Hashable, Sendable, CaseIterable {
    /// Dovecot-like: LITERAL+, ID, ENABLE, IDLE, SORT, ESEARCH, CONDSTORE, UIDPLUS, MOVE, NAMESPACE,
    /// PREVIEW, SASL-IR, AUTH=PLAIN.
    case full
    /// The bare RFC 3501 set.
    case imap4rev1
    /// `full` plus X-GM-EXT-1 (X-GM-RAW searches, whole-word matching).
    case gmailLike = "gmail-like"
    /// Refuses `CHARSET UTF-8` with `NO [BADCHARSET (US-ASCII)]`; no ESEARCH or SORT.
    case exchangeLike = "exchange-like"

    /// The capabilities announced after login (before it, AUTH= and STARTTLS/LOGINDISABLED are
    /// decided by the connection's state).
    public var capabilities: [Capability] {
        switch self {
        case .imap4rev1:
            return [.imap4rev1]
        case .full:
            return [
                .imap4rev1, .literalPlus, .saslIR, .id, .enable, .idle, .sort, .esearch, .condstore, .uidPlus, .move,
                .namespace, .unselect, .preview, .within, .specialUse,
            ]
        case .gmailLike:
            return Profile.full.capabilities + [.gmailExtensions]
        case .exchangeLike:
            return [.imap4rev1, .literalPlus, .id, .idle, .uidPlus, .move, .namespace, .unselect]
        }
    }
}
