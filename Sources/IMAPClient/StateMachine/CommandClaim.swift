public import IMAPCore

/// Which untagged responses belong to a command (RFC 3501 7: untagged data is not labelled with
/// the command that caused it, so the client decides by its kind).
///
/// A response no command claims updates the mailbox state and becomes a `MailboxEvent`.
public enum CommandClaim: Sendable {
    /// Nothing: every untagged response goes to the mailbox state and events.
    case nothing
    /// `* CAPABILITY`.
    case capability
    /// `* ENABLED`.
    case enabled
    /// `* ID`.
    case identity
    /// `* NAMESPACE`.
    case namespace
    /// `* LIST` / `* LSUB`.
    case mailboxList
    /// `* STATUS` of this mailbox.
    case status(MailboxName)
    /// `* SEARCH`, `* ESEARCH` (with this command's tag or none), `* SORT`.
    case search
    /// `* FETCH` of a UID in the set carrying at least one item of the kinds asked for.
    case fetch(SequenceSet, kinds: Set<AttributeKind>)
    /// `* FETCH` of a UID in the set (a STORE's answer).
    case store(SequenceSet)
    /// What the closure says (`IMAPSession.execute`).
    case custom(@Sendable (UntaggedResponse) -> Bool)

    /// Whether `response` belongs to the command; `tag` is the command's own tag.
    func claims(_ response: UntaggedResponse, tag: String) -> Bool {
        switch self {
        case .nothing: return false
        case .capability: if case .capability = response { return true }
        case .enabled: if case .enabled = response { return true }
        case .identity: if case .id = response { return true }
        case .namespace: if case .namespace = response { return true }
        case .mailboxList:
            switch response {
            case .list, .lsub: return true
            default: return false
            }
        case .status(let mailbox):
            if case .mailboxStatus(let name, _) = response { return name == mailbox }
        case .search:
            switch response {
            case .search, .sort: return true
            case .extendedSearch(let answer): return answer.tag == nil || answer.tag == tag
            default: return false
            }
        case .fetch(let set, let kinds):
            // Ours: a UID in our set and at least one item we asked for (an unsolicited FLAGS
            // change of another message is not ours).
            guard case .fetch(let fetch) = response, let uid = fetch.uid, set.contains(uid) else { return false }
            // A loop, not `contains` with `kinds.contains` as its test: that closure was allocated
            // for each response.
            if kinds.isEmpty { return true }
            for attribute in fetch.attributes {
                if let kind = AttributeKind(attribute), kinds.contains(kind) { return true }
            }
            return false
        case .store(let set):
            guard case .fetch(let fetch) = response, let uid = fetch.uid else { return false }
            return set.contains(uid)
        case .custom(let claims): return claims(response)
        }
        return false
    }
}

/// The kind of a FETCH item, to tell which command a FETCH response answers.
public enum AttributeKind: Hashable, Sendable {
    case flags, envelope, internalDate, size, structure, section, binary, preview, modificationSequence, other

    /// The kind of a requested item; nil for UID, which every answer carries.
    public init?(_ attribute: FetchAttribute) {
        switch attribute {
        case .uid: return nil
        case .flags: self = .flags
        case .envelope: self = .envelope
        case .internalDate: self = .internalDate
        case .rfc822Size: self = .size
        case .bodyStructure: self = .structure
        case .bodySection, .rfc822, .rfc822Header, .rfc822Text: self = .section
        case .binary, .binarySize: self = .binary
        case .preview: self = .preview
        case .modificationSequence: self = .modificationSequence
        case .gmailMessageID, .gmailThreadID, .gmailLabels: self = .other
        }
    }

    /// The kind of a returned item; nil for UID.
    public init?(_ attribute: MessageAttribute) {
        switch attribute {
        case .uid: return nil
        case .flags: self = .flags
        case .envelope: self = .envelope
        case .internalDate: self = .internalDate
        case .rfc822Size: self = .size
        case .body, .bodyStructure: self = .structure
        case .bodySection, .rfc822, .rfc822Header, .rfc822Text: self = .section
        case .binary, .binarySize: self = .binary
        case .preview: self = .preview
        case .modificationSequence: self = .modificationSequence
        case .gmailMessageID, .gmailThreadID, .gmailLabels, .unknown: self = .other
        }
    }
}

/// The kind of untagged data a command is answered with; two commands of one class are never in
/// flight together, so their answers cannot be confused.
enum ResponseClass: Hashable {
    case search, messageData, mailboxList, mailboxStatus, capability, namespace, identity

    init?(_ command: Command) {
        switch command {
        case .search, .uidSearch, .sort, .uidSort: self = .search
        case .fetch, .uidFetch, .store, .uidStore: self = .messageData
        case .list, .lsub: self = .mailboxList
        case .status: self = .mailboxStatus
        case .capability: self = .capability
        case .namespace: self = .namespace
        case .id: self = .identity
        case .noop, .logout, .startTLS, .login, .authenticate, .enable, .select, .examine, .create, .delete, .rename,
            .subscribe, .unsubscribe, .close, .unselect, .expunge, .uidExpunge, .append, .check, .copy, .uidCopy,
            .move, .uidMove, .idle:
            return nil
        }
    }

    /// Commands that must not be pipelined with others (RFC 3501 5.5): they change the session
    /// state, or use sequence numbers that an EXPUNGE could shift.
    static func isExclusive(_ command: Command) -> Bool {
        switch command {
        case .uidFetch, .uidSearch, .uidSort, .uidStore, .uidCopy, .noop, .capability, .list, .lsub, .status,
            .namespace, .id, .check, .create, .subscribe, .unsubscribe, .append:
            return false
        case .select, .examine, .startTLS, .login, .authenticate, .idle, .logout, .close, .unselect, .expunge,
            .uidExpunge, .enable, .fetch, .store, .search, .sort, .copy, .move, .uidMove, .delete, .rename:
            return true
        }
    }
}
