public import IMAPCore

/// Which capabilities the mock server announces, so that clients' fallbacks get tested
/// (`docs/mock-server.md`, "Profiles").
public enum Profile: String, Hashable, Sendable, CaseIterable {
    /// Dovecot-like: LITERAL+, ID, ENABLE, IDLE, SORT, SORT=DISPLAY, ESEARCH, CONDSTORE, UIDPLUS, MOVE, NAMESPACE,
    /// PREVIEW, BINARY, SASL-IR, AUTH=PLAIN.
    case full
    /// The bare RFC 3501 set.
    case imap4rev1
    /// `full` plus X-GM-EXT-1 (X-GM-RAW searches, whole-word matching), with LITERAL- instead of
    /// LITERAL+ as Gmail announces.
    case gmailLike = "gmail-like"
    /// Refuses `CHARSET UTF-8` with `NO [BADCHARSET (US-ASCII)]`; no ESEARCH or SORT.
    case exchangeLike = "exchange-like"
    /// `full` plus QRESYNC (RFC 7162), as Dovecot announces it: once enabled, expunges are
    /// `VANISHED`, SELECT and EXAMINE take `(QRESYNC (uidvalidity modseq [uids]))`, and UID FETCH
    /// takes `(CHANGEDSINCE m VANISHED)`.
    case qresync

    /// The capabilities announced after login (before it, AUTH= and STARTTLS/LOGINDISABLED are
    /// decided by the connection's state).
    public var capabilities: [Capability] {
        switch self {
        case .imap4rev1:
            return [.imap4rev1]
        case .full:
            return [
                .imap4rev1, .literalPlus, .saslIR, .id, .enable, .idle, .sort, .sortDisplay, .esearch, .condstore,
                .uidPlus, .move,
                .namespace, .unselect, .preview, .within, .specialUse, .binary,
            ]
        case .gmailLike:
            return Profile.full.capabilities.map { $0 == .literalPlus ? .literalMinus : $0 } + [.gmailExtensions]
        case .exchangeLike:
            return [.imap4rev1, .literalPlus, .id, .idle, .uidPlus, .move, .namespace, .unselect]
        case .qresync:
            return Profile.full.capabilities + [.qresync]
        }
    }
}

extension Profile {
    /// The SASL mechanisms announced as AUTH= (when credentials may be sent).
    public var authenticationMechanisms: [String] {
        switch self {
        case .imap4rev1: return ["PLAIN"]
        case .full, .gmailLike, .exchangeLike, .qresync: return ["PLAIN", "XOAUTH2"]
        }
    }

    /// Why `command` is refused under this profile (it uses an extension the profile does not
    /// announce), or nil when it is accepted: a client must not use what was not announced, and
    /// a test of its fallbacks must see that.
    func refusal(of command: Command) -> String? {
        func needs(_ capability: Capability, _ what: String) -> String? {
            capabilities.contains(capability)
                ? nil : "\(what) needs \(capability.rawValue), which this server does not announce"
        }
        switch command {
        case .idle: return needs(.idle, "IDLE")
        case .enable: return needs(.enable, "ENABLE")
        case .id: return needs(.id, "ID")
        case .namespace: return needs(.namespace, "NAMESPACE")
        case .unselect: return needs(.unselect, "UNSELECT")
        case .uidExpunge: return needs(.uidPlus, "UID EXPUNGE")
        case .move, .uidMove: return needs(.move, "MOVE")
        case .sort, .uidSort: return needs(.sort, "SORT")
        case .search(_, let returnOptions, _), .uidSearch(_, let returnOptions, _):
            return returnOptions == nil ? nil : needs(.esearch, "SEARCH RETURN")
        case .select(_, let parameters), .examine(_, let parameters):
            for parameter in parameters {
                if case .other(let name, _) = parameter, name.uppercased() == "QRESYNC",
                    let refusal = needs(.qresync, "the QRESYNC parameter")
                {
                    return refusal
                }
            }
            return parameters.contains(.condStore) ? needs(.condstore, "the CONDSTORE parameter") : nil
        case .store(_, let unchangedSince, _), .uidStore(_, let unchangedSince, _):
            return unchangedSince == nil ? nil : needs(.condstore, "UNCHANGEDSINCE")
        case .status(_, let attributes):
            return attributes.contains(.highestModSeq) ? needs(.condstore, "HIGHESTMODSEQ") : nil
        case .append(_, let message):
            return message.binary ? needs(.binary, "a binary literal") : nil
        case .fetch(_, let attributes, let modifiers), .uidFetch(_, let attributes, let modifiers):
            if !modifiers.isEmpty, let refusal = needs(.condstore, "CHANGEDSINCE") { return refusal }
            if modifiers.contains(.vanished), let refusal = needs(.qresync, "VANISHED") { return refusal }
            for attribute in attributes {
                switch attribute {
                case .modificationSequence:
                    if let refusal = needs(.condstore, "MODSEQ") { return refusal }
                case .binary, .binarySize:
                    if let refusal = needs(.binary, "BINARY") { return refusal }
                case .preview:
                    if let refusal = needs(.preview, "PREVIEW") { return refusal }
                case .gmailMessageID, .gmailThreadID, .gmailLabels:
                    if let refusal = needs(.gmailExtensions, "X-GM-MSGID, X-GM-THRID and X-GM-LABELS") {
                        return refusal
                    }
                case .envelope, .flags, .internalDate, .rfc822Size, .rfc822, .rfc822Header, .rfc822Text, .bodyStructure,
                    .uid, .bodySection:
                    continue
                }
            }
            return nil
        case .capability, .noop, .logout, .startTLS, .login, .authenticate, .create, .delete, .rename, .subscribe,
            .unsubscribe, .list, .lsub, .close, .expunge, .check, .copy, .uidCopy:
            return nil
        }
    }
}
