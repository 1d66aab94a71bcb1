import IMAPCore

/// The mailbox commands of one logged-in session (RFC 3501 6.3 and 6.4 with their extensions),
/// run against the shared `MailStore`, and the session's view of its selected mailbox.
///
/// The protocol state (who is logged in, STARTTLS, IDLE, which commands a state allows) is
/// `SessionStateMachine`'s; this type runs the commands the state machine passes on and reports
/// what other sessions changed (EXISTS, EXPUNGE, FETCH FLAGS) at the points RFC 3501 7 allows.
struct MailboxSession: Sendable {
    let store: MailStore
    let user: String
    let profile: Profile
    /// The selected mailbox, or nil in the authenticated state.
    var selected: SelectedMailboxView?
    /// CONDSTORE is on: by ENABLE, SELECT (CONDSTORE), or a command that uses mod-sequences
    /// (RFC 7162 3.1); FETCH responses then carry MODSEQ.
    var condStoreEnabled = false
    /// QRESYNC is on (RFC 7162 3.2: by ENABLE QRESYNC, which turns CONDSTORE on too): expunges
    /// are reported as `VANISHED`, SELECT takes the QRESYNC parameter and UID FETCH the VANISHED
    /// modifier.
    var qresyncEnabled = false
    /// The clock, in seconds since 1970 (a parameter so tests can fix it).
    var now: @Sendable () -> Int = { currentSecondsSinceEpoch() }

    init(store: MailStore, user: String, profile: Profile) {
        self.store = store
        self.user = user
        self.profile = profile
    }

    /// What a command produced.
    struct Outcome: Sendable {
        /// The responses, the tagged one last.
        var responses: [Response]
        /// The session must end (the selected mailbox vanished or changed UIDVALIDITY); the
        /// responses end with `* BYE`.
        var closesConnection = false
    }

    /// The answer of one command handler before updates are added.
    struct Reply: Sendable {
        var untagged: [Response] = []
        var status: ResponseStatus = .ok
        var code: ResponseCode?
        var text: String
        /// Whether changes by others may be reported with this reply.
        var includesUpdates = true

        static func ok(_ text: String, code: ResponseCode? = nil, untagged: [Response] = []) -> Reply {
            Reply(untagged: untagged, status: .ok, code: code, text: text)
        }

        static func no(_ text: String, code: ResponseCode? = nil) -> Reply {
            Reply(status: .no, code: code, text: text)
        }

        static func bad(_ text: String, code: ResponseCode? = nil) -> Reply {
            Reply(status: .bad, code: code, text: text)
        }
    }

    /// The selected mailbox as the state machine needs to know it.
    var selection: SessionStateMachine.Selection? {
        selected.map { SessionStateMachine.Selection(mailbox: $0.name, isReadOnly: $0.isReadOnly) }
    }

    // MARK: - Running commands

    /// Runs a command of the authenticated or selected state.
    mutating func execute(_ tagged: TaggedCommand) -> Outcome {
        // A command for a mailbox deleted or re-created meanwhile never runs: its UIDs and
        // sequence numbers name other messages now.
        if !tagged.command.opensMailbox, let lost = lostSelection() { return lost }
        let condStoreWasEnabled = condStoreEnabled
        let selectedBefore = selected?.name
        let reply: Reply
        var allowsExpunge = true
        switch tagged.command {
        case .noop, .check:
            reply = .ok("\(tagged.command.name) completed")
        case .select(let mailbox, let parameters):
            reply = select(mailbox, parameters: parameters, readOnly: false)
        case .examine(let mailbox, let parameters):
            reply = select(mailbox, parameters: parameters, readOnly: true)
        case .create(let mailbox): reply = create(mailbox)
        case .delete(let mailbox): reply = delete(mailbox)
        case .rename(let from, let to): reply = rename(from, to: to)
        case .subscribe(let mailbox): reply = subscribe(mailbox, true)
        case .unsubscribe(let mailbox): reply = subscribe(mailbox, false)
        case .list(let selection, let reference, let patterns, let returnOptions):
            reply = list(selection: selection, reference: reference, patterns: patterns, returnOptions: returnOptions)
        case .lsub(let reference, let pattern):
            reply = lsub(reference: reference, pattern: pattern)
        case .status(let mailbox, let attributes): reply = status(mailbox, attributes)
        case .namespace:
            let personal = NamespaceDescription(prefix: "", delimiter: UInt8(ascii: "/"))
            reply = .ok(
                "NAMESPACE completed",
                untagged: [.untagged(.namespace(NamespaceResponse(personal: [personal], otherUsers: [], shared: [])))])
        case .enable(let capabilities): reply = enable(capabilities)
        case .append(let mailbox, let message): reply = append(message, to: mailbox)
        case .close: reply = close(expunging: true)
        case .unselect: reply = close(expunging: false)
        case .expunge: reply = expunge(uids: nil)
        case .uidExpunge(let set): reply = expunge(uids: set)
        case .search(let charset, let returnOptions, let keys):
            allowsExpunge = false
            reply = search(keys, charset: charset, returnOptions: returnOptions, byUID: false, tag: tagged.tag)
        case .uidSearch(let charset, let returnOptions, let keys):
            reply = search(keys, charset: charset, returnOptions: returnOptions, byUID: true, tag: tagged.tag)
        case .sort(let criteria, let charset, let keys, let returnOptions):
            allowsExpunge = false
            reply = sort(criteria, keys: keys, charset: charset, returnOptions: returnOptions, byUID: false)
        case .uidSort(let criteria, let charset, let keys, let returnOptions):
            reply = sort(criteria, keys: keys, charset: charset, returnOptions: returnOptions, byUID: true)
        case .fetch(let set, let attributes, let modifiers):
            allowsExpunge = false
            reply = fetch(set, attributes, modifiers: modifiers, byUID: false)
        case .uidFetch(let set, let attributes, let modifiers):
            reply = fetch(set, attributes, modifiers: modifiers, byUID: true)
        case .store(let set, let unchangedSince, let flags):
            allowsExpunge = false
            reply = storeFlags(set, unchangedSince: unchangedSince, flags, byUID: false)
        case .uidStore(let set, let unchangedSince, let flags):
            reply = storeFlags(set, unchangedSince: unchangedSince, flags, byUID: true)
        case .copy(let set, let mailbox): reply = transfer(set, to: mailbox, byUID: false, moving: false)
        case .uidCopy(let set, let mailbox): reply = transfer(set, to: mailbox, byUID: true, moving: false)
        case .move(let set, let mailbox): reply = transfer(set, to: mailbox, byUID: false, moving: true)
        case .uidMove(let set, let mailbox): reply = transfer(set, to: mailbox, byUID: true, moving: true)
        case .capability, .logout, .startTLS, .login, .authenticate, .id, .idle:
            // The state machine answers these itself.
            reply = .bad("\(tagged.command.name) is not a mailbox command")
        }
        var responses = announcingNewKeywords() + reply.untagged
        if !condStoreWasEnabled, condStoreEnabled, !tagged.command.opensMailbox, let view = selected,
            view.name == selectedBefore, let record = store.snapshot(user: user, mailbox: view.name)
        {
            // RFC 7162 3.1: the first CONDSTORE-enabling command while a mailbox is selected is
            // answered with the mailbox's HIGHESTMODSEQ too (SELECT/EXAMINE send it anyway).
            responses.insert(
                Self.untaggedOK("Highest", code: .highestModificationSequence(record.highestModificationSequence)),
                at: 0)
        }
        if reply.includesUpdates {
            let updates = pendingUpdates(allowingExpunge: allowsExpunge)
            responses += updates.responses
            if updates.closesConnection { return Outcome(responses: responses, closesConnection: true) }
        }
        responses.append(
            .tagged(
                TaggedResponse(
                    tag: tagged.tag, status: reply.status,
                    text: ResponseText(code: reply.code, text: ByteString(reply.text)))))
        return Outcome(responses: responses)
    }

    // MARK: - Changes made by others

    /// `* FLAGS` and `* OK [PERMANENTFLAGS ...]` when the selected mailbox has keywords this
    /// session has not been told about, to go before any response that could use them: a
    /// client must see a keyword in FLAGS before it sees it in a FETCH (RFC 3501 7.2.6: FLAGS
    /// lists the flags that apply to the mailbox; RFC 9051 7.3.5). Keywords are only ever added
    /// (and FETCH builds from an earlier snapshot), so a later snapshot covers every keyword the
    /// responses can hold.
    mutating func announcingNewKeywords() -> [Response] {
        guard var view = selected, let record = store.snapshot(user: user, mailbox: view.name),
            record.uidValidity == view.uidValidity, record.keywords.count != view.knownKeywordCount
        else { return [] }
        view.knownKeywordCount = record.keywords.count
        selected = view
        return flagsResponses(record, readOnly: view.isReadOnly)
    }

    /// A `* BYE` and `closesConnection` when the selected mailbox was deleted or re-created (its
    /// UIDVALIDITY changed) under the session; nil otherwise.
    private mutating func lostSelection() -> Outcome? {
        guard let view = selected else { return nil }
        guard let record = store.snapshot(user: user, mailbox: view.name), record.isSelectable else {
            selected = nil
            return Outcome(
                responses: [Self.bye("mailbox \(view.name) was deleted; select another one after reconnecting")],
                closesConnection: true)
        }
        guard record.uidValidity == view.uidValidity else {
            selected = nil
            return Outcome(
                responses: [Self.bye("UIDVALIDITY of \(view.name) changed; cached UIDs are invalid, reconnect")],
                closesConnection: true)
        }
        return nil
    }

    /// What changed in the selected mailbox since the session was last told: `* n EXPUNGE`
    /// (unless `allowingExpunge` is false), `* n FETCH (FLAGS ...)`, `* n EXISTS`, `* n RECENT`,
    /// and a new `* FLAGS` when keywords appeared. When the mailbox is gone or its UIDVALIDITY
    /// changed, a `* BYE` and `closesConnection`.
    mutating func pendingUpdates(allowingExpunge: Bool = true) -> Outcome {
        if let lost = lostSelection() { return lost }
        guard var view = selected, let record = store.snapshot(user: user, mailbox: view.name) else {
            return Outcome(responses: [])
        }
        guard record.highestModificationSequence != view.knownModificationSequence || view.hasPendingExpunges else {
            return Outcome(responses: [])
        }
        var responses: [Response] = []
        if record.keywords.count != view.knownKeywordCount {
            responses += flagsResponses(record, readOnly: view.isReadOnly)
            view.knownKeywordCount = record.keywords.count
        }
        let lastKnownUID = view.uids.last ?? 0

        // Which known messages are gone: walk both ascending lists.
        var gone: [Int] = []
        var recordIndex = 0
        for (index, uid) in view.uids.enumerated() {
            while recordIndex < record.messages.count && record.messages[recordIndex].uid < uid { recordIndex += 1 }
            if recordIndex >= record.messages.count || record.messages[recordIndex].uid != uid { gone.append(index) }
        }
        if !gone.isEmpty {
            if allowingExpunge {
                responses += removeFromView(&view, uids: gone.map { view.uids[$0] })
                view.hasPendingExpunges = false
            } else {
                view.hasPendingExpunges = true
            }
        } else {
            view.hasPendingExpunges = false
        }

        // Flag changes of known messages.
        if record.highestModificationSequence > view.knownModificationSequence {
            for message in record.messages where message.uid <= lastKnownUID {
                guard message.modificationSequence > view.knownModificationSequence,
                    view.ownChanges[message.uid] != message.modificationSequence,
                    let sequenceNumber = view.sequenceNumber(of: message.uid)
                else { continue }
                var attributes: [MessageAttribute] = [
                    .uid(message.uid), .flags(flagsWithRecent(message, view: view)),
                ]
                if condStoreEnabled { attributes.append(.modificationSequence(message.modificationSequence)) }
                responses.append(
                    .untagged(.fetch(FetchResponse(sequenceNumber: sequenceNumber, attributes: attributes))))
            }
        }

        // New messages.
        let newUIDs = record.messages.lazy.filter { $0.uid > lastKnownUID }.map(\.uid)
        if !newUIDs.isEmpty {
            view.uids.append(contentsOf: newUIDs)
            if !view.isReadOnly {
                let claimed = claimRecent(in: view.name, uids: Array(newUIDs))
                view.recent.formUnion(claimed)
            }
            responses.append(.untagged(.exists(UInt32(view.uids.count))))
            responses.append(.untagged(.recent(UInt32(view.recent.count))))
        }
        view.knownModificationSequence = record.highestModificationSequence
        view.ownChanges.removeAll(keepingCapacity: true)
        selected = view
        return Outcome(responses: responses)
    }

    /// Takes `\Recent` for `uids` away from every other session; returns the ones this session got.
    func claimRecent(in mailbox: String, uids: [UInt32]?) -> Set<UInt32> {
        let claimed = try? store.update(user: user, mailbox: mailbox, notifying: false) { record -> Set<UInt32> in
            var claimed = Set<UInt32>()
            if let uids {
                for uid in uids {
                    guard let index = record.index(ofUID: uid), record.messages[index].isRecent else { continue }
                    record.messages[index].isRecent = false
                    claimed.insert(uid)
                }
            } else {
                for index in record.messages.indices where record.messages[index].isRecent {
                    record.messages[index].isRecent = false
                    claimed.insert(record.messages[index].uid)
                }
            }
            return claimed
        }
        return claimed ?? []
    }

    // MARK: - Helpers

    /// The flags of a message as this session shows them (with `\Recent` when it has it).
    func flagsWithRecent(_ message: StoredMessage, view: SelectedMailboxView) -> [Flag] {
        view.recent.contains(message.uid) ? message.flags + [.recent] : message.flags
    }

    /// `* FLAGS` and `* OK [PERMANENTFLAGS ...]` for a mailbox.
    func flagsResponses(_ record: MailboxRecord, readOnly: Bool) -> [Response] {
        [
            .untagged(.flags(record.flagList)),
            Self.untaggedOK(
                readOnly ? "No permanent flags permitted" : "Flags permitted",
                code: .permanentFlags(readOnly ? [] : record.flagList + [.wildcard])),
        ]
    }

    static func untaggedOK(_ text: String, code: ResponseCode? = nil) -> Response {
        .untagged(.condition(.ok, ResponseText(code: code, text: ByteString(text))))
    }

    static func bye(_ text: String) -> Response {
        .untagged(.condition(.bye, ResponseText(text: ByteString(text))))
    }

    /// A response code RFC 5530 defines (`NONEXISTENT`, `ALREADYEXISTS`, `CANNOT` ...).
    static func code(_ name: String) -> ResponseCode { .other(name: name, value: nil) }

    /// The wire name of a mailbox argument (`inbox` in any case is `INBOX`).
    static func wireName(_ mailbox: MailboxName) -> String {
        var name = mailbox.bytes.string
        while name.count > 1 && name.hasSuffix("/") { name.removeLast() }
        return MailboxName(ByteString(name)).bytes.string
    }

    /// Whether the profile announces `capability`.
    func has(_ capability: Capability) -> Bool { profile.capabilities.contains(capability) }
}

extension Command {
    /// SELECT or EXAMINE.
    var opensMailbox: Bool {
        switch self {
        case .select, .examine: return true
        case .capability, .noop, .logout, .startTLS, .login, .authenticate, .create, .delete, .rename, .subscribe,
            .unsubscribe, .list, .lsub, .status, .namespace, .enable, .append, .close, .unselect, .expunge,
            .uidExpunge, .search, .uidSearch, .sort, .uidSort, .fetch, .uidFetch, .store, .uidStore, .copy, .uidCopy,
            .move, .uidMove, .id, .idle, .check:
            return false
        }
    }
}
