import IMAPCore

extension MailboxSession {
    // MARK: - SELECT, EXAMINE, CLOSE, UNSELECT

    // RFC 3501 6.3.1 / 6.3.2, RFC 7162 3.1.8 (CONDSTORE parameter, HIGHESTMODSEQ)
    /// ```
    /// C: a3 SELECT INBOX
    /// S: * FLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned)
    /// S: * OK [PERMANENTFLAGS (\Answered \Flagged \Deleted \Seen \Draft $Pinned \*)] Flags permitted
    /// S: * 172 EXISTS
    /// S: * 1 RECENT
    /// S: * OK [UNSEEN 12] First unseen
    /// S: * OK [UIDVALIDITY 3857529045] UIDs valid
    /// S: * OK [UIDNEXT 4392] Predicted next UID
    /// S: * OK [HIGHESTMODSEQ 715194045007] Highest
    /// S: a3 OK [READ-WRITE] SELECT completed
    /// ```
    mutating func select(_ mailbox: MailboxName, parameters: [SelectParameter], readOnly: Bool) -> Reply {
        var untagged: [Response] = []
        if selected != nil && condStoreEnabled {
            untagged.append(Self.untaggedOK("Previous mailbox closed", code: .closed))
        }
        selected = nil
        let name = Self.wireName(mailbox)
        guard let record = store.snapshot(user: user, mailbox: name), record.isSelectable else {
            var reply = Reply.no("Mailbox does not exist: \(mailbox)", code: Self.code("NONEXISTENT"))
            reply.untagged = untagged
            return reply
        }
        var resynchronizing: Resynchronizing?
        for parameter in parameters {
            switch parameter {
            case .condStore: condStoreEnabled = true
            case .other(let parameterName, let value) where parameterName.uppercased() == "QRESYNC":
                guard qresyncEnabled else { return .bad("the QRESYNC parameter needs ENABLE QRESYNC first") }
                guard let value, let parsed = Resynchronizing(value) else {
                    return .bad("QRESYNC takes (uidvalidity modseq [known-uids [seq-match-data]])")
                }
                resynchronizing = parsed
            case .other(let parameterName, _):
                return .bad("unknown SELECT parameter \(parameterName)")
            }
        }
        let recent = readOnly ? Set(record.messages.filter(\.isRecent).map(\.uid)) : claimRecent(in: name, uids: nil)
        let view = SelectedMailboxView(
            name: name, isReadOnly: readOnly, uidValidity: record.uidValidity, uids: record.messages.map(\.uid),
            knownModificationSequence: record.highestModificationSequence, recent: recent,
            knownKeywordCount: record.keywords.count)
        untagged += flagsResponses(record, readOnly: readOnly)
        untagged.append(.untagged(.exists(UInt32(record.messages.count))))
        untagged.append(.untagged(.recent(UInt32(recent.count))))
        if let firstUnseen = record.messages.firstIndex(where: { !$0.has(.seen) }) {
            untagged.append(Self.untaggedOK("First unseen", code: .unseen(UInt32(firstUnseen + 1))))
        }
        untagged.append(Self.untaggedOK("UIDs valid", code: .uidValidity(record.uidValidity)))
        untagged.append(Self.untaggedOK("Predicted next UID", code: .uidNext(record.uidNext)))
        if has(.condstore) {
            untagged.append(
                Self.untaggedOK("Highest", code: .highestModificationSequence(record.highestModificationSequence)))
        }
        // RFC 7162 3.2.5: what the client missed since its mod-sequence, in this answer, when
        // the UIDVALIDITY it knows is still the mailbox's.
        if let resynchronizing, resynchronizing.uidValidity == record.uidValidity {
            if let gone = Self.vanished(in: resynchronizing.knownUIDs, from: record) {
                untagged.append(.untagged(.vanished(earlier: true, gone)))
            }
            for (index, message) in record.messages.enumerated()
            where message.modificationSequence > resynchronizing.modificationSequence {
                let attributes: [MessageAttribute] = [
                    .uid(message.uid), .flags(flagsWithRecent(message, view: view)),
                    .modificationSequence(message.modificationSequence),
                ]
                untagged.append(
                    .untagged(.fetch(FetchResponse(sequenceNumber: UInt32(index + 1), attributes: attributes))))
            }
        }
        selected = view
        var reply = Reply.ok(
            "\(readOnly ? "EXAMINE" : "SELECT") completed", code: readOnly ? .readOnly : .readWrite, untagged: untagged)
        reply.includesUpdates = false
        return reply
    }

    // RFC 3501 6.4.2 CLOSE, RFC 3691 UNSELECT
    mutating func close(expunging: Bool) -> Reply {
        guard let view = selected else { return .bad("no mailbox is selected") }
        if expunging && !view.isReadOnly {
            _ = try? store.update(user: user, mailbox: view.name) { record in
                record.remove(at: record.messages.indices.filter { record.messages[$0].has(.deleted) })
            }
        }
        selected = nil
        var reply = Reply.ok(expunging ? "CLOSE completed" : "UNSELECT completed")
        reply.includesUpdates = false
        return reply
    }

    // MARK: - CREATE, DELETE, RENAME, SUBSCRIBE

    // RFC 3501 6.3.3
    mutating func create(_ mailbox: MailboxName) -> Reply {
        let name = Self.wireName(mailbox)
        guard !name.isEmpty, name != "/" else { return .bad("a mailbox name cannot be empty") }
        guard !name.contains("//"), !name.hasPrefix("/") else {
            return .no("\(mailbox) is not a valid mailbox name", code: Self.code("CANNOT"))
        }
        if name == "INBOX" { return .no("INBOX exists already", code: Self.code("ALREADYEXISTS")) }
        do {
            try store.createMailbox(wireName: name, user: user)
        } catch {
            return .no("Mailbox exists already: \(mailbox)", code: Self.code("ALREADYEXISTS"))
        }
        return .ok("CREATE completed")
    }

    // RFC 3501 6.3.4
    mutating func delete(_ mailbox: MailboxName) -> Reply {
        let name = Self.wireName(mailbox)
        guard name != "INBOX" else { return .no("INBOX cannot be deleted", code: Self.code("CANNOT")) }
        let result: Reply? = try? store.updateAccount(user, touching: [name]) { account, _ -> Reply in
            guard let record = account.mailboxes[name] else {
                return .no("Mailbox does not exist: \(mailbox)", code: Self.code("NONEXISTENT"))
            }
            let hasChildren = account.mailboxes.keys.contains { $0.hasPrefix(name + "/") }
            if !record.isSelectable && hasChildren {
                return .no("\(mailbox) has children and holds no messages", code: Self.code("INUSE"))
            }
            MailStore.delete(name, in: &account)
            return .ok("DELETE completed")
        }
        if selected?.name == name { selected = nil }
        return result ?? .no("DELETE failed", code: Self.code("SERVERBUG"))
    }

    // RFC 3501 6.3.5: renaming INBOX moves its messages to the new mailbox and leaves it empty.
    mutating func rename(_ source: MailboxName, to destination: MailboxName) -> Reply {
        let from = Self.wireName(source)
        let to = Self.wireName(destination)
        guard !to.isEmpty, !to.contains("//"), !to.hasPrefix("/") else {
            return .no("\(destination) is not a valid mailbox name", code: Self.code("CANNOT"))
        }
        let result: Reply? = try? store.updateAccount(user, touching: [from, to]) { account, state -> Reply in
            guard let record = account.mailboxes[from], record.isSelectable || from != "INBOX" else {
                return .no("Mailbox does not exist: \(source)", code: Self.code("NONEXISTENT"))
            }
            if let existing = account.mailboxes[to], existing.isSelectable || to == "INBOX" {
                return .no("Mailbox exists already: \(destination)", code: Self.code("ALREADYEXISTS"))
            }
            if to.hasPrefix(from + "/") {
                return .no("a mailbox cannot be moved into itself", code: Self.code("CANNOT"))
            }
            let parts = to.split(separator: "/")
            for depth in 1..<max(1, parts.count) {
                let parent = parts[0..<depth].joined(separator: "/")
                if account.mailboxes[parent] == nil {
                    account.mailboxes[parent] = MailboxRecord(name: parent, uidValidity: state.takeUIDValidity())
                }
            }
            if from == "INBOX" {
                var moved = record
                moved.name = to
                moved.uidValidity = state.takeUIDValidity()
                account.mailboxes[to] = moved
                var emptied = MailboxRecord(name: "INBOX", uidValidity: state.takeUIDValidity())
                emptied.uidNext = record.uidNext
                account.mailboxes["INBOX"] = emptied
                return .ok("RENAME completed")
            }
            for key in Array(account.mailboxes.keys) where key == from || key.hasPrefix(from + "/") {
                guard var moved = account.mailboxes.removeValue(forKey: key) else { continue }
                let newName = to + key.dropFirst(from.count)
                moved.name = newName
                account.mailboxes[newName] = moved
                if account.subscriptions.remove(key) != nil { account.subscriptions.insert(newName) }
            }
            return .ok("RENAME completed")
        }
        if selected?.name == from { selected = nil }
        return result ?? .no("RENAME failed", code: Self.code("SERVERBUG"))
    }

    // RFC 3501 6.3.6 / 6.3.7
    mutating func subscribe(_ mailbox: MailboxName, _ subscribing: Bool) -> Reply {
        let name = Self.wireName(mailbox)
        let result: Reply? = try? store.updateAccount(user) { account, _ -> Reply in
            if subscribing {
                guard account.mailboxes[name] != nil else {
                    return .no("Mailbox does not exist: \(mailbox)", code: Self.code("NONEXISTENT"))
                }
                account.subscriptions.insert(name)
                return .ok("SUBSCRIBE completed")
            }
            account.subscriptions.remove(name)
            return .ok("UNSUBSCRIBE completed")
        }
        return result ?? .no("failed", code: Self.code("SERVERBUG"))
    }

    // MARK: - LIST, LSUB, STATUS

    // RFC 3501 6.3.8, RFC 5258 (selection and return options), RFC 6154 (special use)
    /// ```
    /// C: a4 LIST "" "*"
    /// S: * LIST (\HasNoChildren) "/" INBOX
    /// S: * LIST (\HasNoChildren \Sent) "/" Sent
    /// S: a4 OK LIST completed
    /// ```
    func list(
        selection: [ListSelectOption], reference: MailboxName, patterns: [ByteString],
        returnOptions: [ListReturnOption]
    ) -> Reply {
        if patterns.count == 1 && patterns[0].isEmpty {
            // The hierarchy delimiter and root (RFC 3501 6.3.8).
            let root = MailboxListItem(attributes: ["\\Noselect"], delimiter: UInt8(ascii: "/"), name: MailboxName(""))
            return .ok("LIST completed", untagged: [.untagged(.list(root))])
        }
        guard let account = store.account(user) else { return .no("no such user", code: Self.code("SERVERBUG")) }
        let showSubscribed = selection.contains(.subscribed) || returnOptions.contains(.subscribed)
        let showSpecialUse = has(.specialUse) || selection.contains(.specialUse) || returnOptions.contains(.specialUse)
        var names = Set<String>()
        for pattern in patterns {
            let full = reference.bytes.string + pattern.string
            for name in account.mailboxes.keys where MailboxPattern.matches(name, pattern: full) { names.insert(name) }
            if selection.contains(.subscribed) {
                for name in account.subscriptions where MailboxPattern.matches(name, pattern: full) {
                    names.insert(name)
                }
            }
        }
        var untagged: [Response] = []
        for name in Self.ordered(names) {
            let record = account.mailboxes[name]
            if selection.contains(.subscribed) && !account.subscriptions.contains(name) { continue }
            if selection.contains(.specialUse) && record?.specialUse == nil { continue }
            var attributes: [String] = []
            if let record {
                if !record.isSelectable { attributes.append("\\Noselect") }
                let hasChildren = account.mailboxes.keys.contains { $0.hasPrefix(name + "/") }
                attributes.append(hasChildren ? "\\HasChildren" : "\\HasNoChildren")
                if showSpecialUse, let specialUse = record.specialUse { attributes.append(specialUse.rawValue) }
            } else {
                attributes.append("\\NonExistent")
            }
            if showSubscribed && account.subscriptions.contains(name) { attributes.append("\\Subscribed") }
            untagged.append(
                .untagged(
                    .list(
                        MailboxListItem(
                            attributes: attributes, delimiter: UInt8(ascii: "/"), name: MailboxName(ByteString(name)))))
            )
        }
        return .ok("LIST completed", untagged: untagged)
    }

    // RFC 3501 6.3.9
    /// ```
    /// C: a5 LSUB "" box/%
    /// S: * LSUB () "/" box/test
    /// S: * LSUB (\Noselect) "/" box/test2
    /// S: a5 OK LSUB completed
    /// ```
    /// A subscribed mailbox that is gone or cannot be selected is `\Noselect`. When `%` stops a
    /// pattern short of a subscribed mailbox (box/test2/test), its level that the pattern does
    /// match (box/test2) is returned in its place with `\Noselect` unless subscribed itself:
    /// "A "%" wildcard to LSUB must return foo, not foo/bar ... flagged with the \Noselect
    /// attribute."
    func lsub(reference: MailboxName, pattern: ByteString) -> Reply {
        guard let account = store.account(user) else { return .no("no such user", code: Self.code("SERVERBUG")) }
        let full = reference.bytes.string + pattern.string
        var names: [String: Bool] = [:]  // name: selectable-and-subscribed
        for subscribed in account.subscriptions {
            if MailboxPattern.matches(subscribed, pattern: full) {
                names[subscribed] = account.mailboxes[subscribed]?.isSelectable ?? false
                continue
            }
            var parent = Substring(subscribed)
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                let name = String(parent)
                if !account.subscriptions.contains(name), MailboxPattern.matches(name, pattern: full) {
                    names[name] = names[name] ?? false
                }
            }
        }
        let untagged = Self.ordered(names.keys).map { name -> Response in
            .untagged(
                .lsub(
                    MailboxListItem(
                        attributes: names[name] == true ? [] : ["\\Noselect"], delimiter: UInt8(ascii: "/"),
                        name: MailboxName(ByteString(name)))))
        }
        return .ok("LSUB completed", untagged: untagged)
    }

    /// INBOX first, then by name.
    static func ordered(_ names: some Collection<String>) -> [String] {
        names.sorted { left, right in
            if left == "INBOX" { return right != "INBOX" }
            if right == "INBOX" { return false }
            return left < right
        }
    }

    // RFC 3501 6.3.10, RFC 7162 (HIGHESTMODSEQ), RFC 9051 (DELETED, SIZE)
    func status(_ mailbox: MailboxName, _ attributes: [StatusAttribute]) -> Reply {
        let name = Self.wireName(mailbox)
        guard let record = store.snapshot(user: user, mailbox: name), record.isSelectable else {
            return .no("Mailbox does not exist: \(mailbox)", code: Self.code("NONEXISTENT"))
        }
        var status = MailboxStatus()
        for attribute in attributes {
            switch attribute {
            case .messages: status.messageCount = UInt32(record.messages.count)
            case .recent:
                status.recentCount =
                    selected?.name == name
                    ? UInt32(selected?.recent.count ?? 0) : UInt32(record.messages.filter(\.isRecent).count)
            case .uidNext: status.uidNext = record.uidNext
            case .uidValidity: status.uidValidity = record.uidValidity
            case .unseen: status.unseenCount = UInt32(record.unseenCount)
            case .deleted: status.deletedCount = UInt32(record.deletedCount)
            case .size: status.size = UInt64(record.totalSize)
            case .highestModSeq: status.highestModificationSequence = record.highestModificationSequence
            case .appendLimit: status.appendLimit = UInt64(Int32.max)
            }
        }
        return .ok("STATUS completed", untagged: [.untagged(.mailboxStatus(MailboxName(ByteString(name)), status))])
    }

    // MARK: - ENABLE, APPEND

    // RFC 5161: only extensions that change the protocol can be enabled; others are ignored.
    mutating func enable(_ capabilities: [Capability]) -> Reply {
        var enabled: [Capability] = []
        for capability in capabilities where (capability == .condstore || capability == .qresync) && has(capability) {
            // QRESYNC implies CONDSTORE (RFC 7162 3.2.3).
            condStoreEnabled = true
            if capability == .qresync { qresyncEnabled = true }
            if !enabled.contains(capability) { enabled.append(capability) }
        }
        return .ok("ENABLE completed", untagged: [.untagged(.enabled(enabled))])
    }

    // RFC 3501 6.3.11, RFC 4315 APPENDUID
    /// ```
    /// C: a7 APPEND Drafts (\Draft) {310}
    /// S: + Ready for literal
    /// C: (310 octets)
    /// S: a7 OK [APPENDUID 38505 3955] APPEND completed
    /// ```
    func append(_ message: AppendMessage, to mailbox: MailboxName) -> Reply {
        let name = Self.wireName(mailbox)
        if let invalid = FlagValidation.firstInvalid(message.flags) { return .bad(invalid) }
        let bytes = Array(message.data.bytes)
        let indexed = IndexedMessage(bytes: message.binary ? BinaryAppend.storedForm(of: bytes) : bytes)
        let date = message.internalDate ?? IMAPDateTime(secondsSinceEpoch: now())
        do {
            let (uid, validity) = try store.update(user: user, mailbox: name) {
                (record) throws(MockServerError) -> (UInt32, UInt32) in
                (try record.append(indexed, flags: message.flags, internalDate: date), record.uidValidity)
            }
            return .ok(
                "APPEND completed",
                code: has(.uidPlus) ? .appendUID(uidValidity: validity, uids: SequenceSet(uid)) : nil)
        } catch {
            return .no("Mailbox does not exist: \(mailbox)", code: .tryCreate)
        }
    }
}

/// LIST patterns (RFC 3501 6.3.8): `*` matches anything, `%` anything but the delimiter.
enum MailboxPattern {
    static func matches(_ name: String, pattern: String) -> Bool {
        let nameCharacters = Array(name.utf8)
        var patternCharacters = Array(pattern.utf8)
        // INBOX is case-insensitive, in the pattern too.
        if patternCharacters.count >= 5
            && String(decoding: patternCharacters[0..<5], as: UTF8.self).uppercased() == "INBOX"
            && (patternCharacters.count == 5 || patternCharacters[5] == UInt8(ascii: "/"))
        {
            patternCharacters.replaceSubrange(0..<5, with: Array("INBOX".utf8))
        }
        return match(nameCharacters[...], patternCharacters[...])
    }

    /// Row by row over the pattern: `matched[j]` says whether the pattern so far matches the
    /// first j bytes of the name (linear in both, whatever the wildcards).
    private static func match(_ name: ArraySlice<UInt8>, _ pattern: ArraySlice<UInt8>) -> Bool {
        let name = Array(name)
        var matched = [Bool](repeating: false, count: name.count + 1)
        matched[0] = true
        for symbol in pattern {
            var next = [Bool](repeating: false, count: name.count + 1)
            switch symbol {
            case UInt8(ascii: "*"):
                next[0] = matched[0]
                for index in name.indices { next[index + 1] = next[index] || matched[index + 1] }
            case UInt8(ascii: "%"):
                next[0] = matched[0]
                for index in name.indices {
                    next[index + 1] = matched[index + 1] || (next[index] && name[index] != UInt8(ascii: "/"))
                }
            default:
                for index in name.indices { next[index + 1] = matched[index] && name[index] == symbol }
            }
            matched = next
        }
        return matched[name.count]
    }
}

/// Which flags a client may set (RFC 3501 2.3.2, 9: flag-keyword is an atom).
enum FlagValidation {
    static let systemFlags: [Flag] = [.answered, .flagged, .deleted, .seen, .draft]

    /// Why the first unacceptable flag is refused, or nil when all are fine.
    static func firstInvalid(_ flags: [Flag]) -> String? {
        for flag in flags {
            if flag.isSystemFlag {
                if !systemFlags.contains(flag) {
                    return flag == .recent
                        ? "\\Recent cannot be set or cleared (RFC 3501 2.3.2)"
                        : "\(flag.rawValue) is not a system flag (\\Answered \\Flagged \\Deleted \\Seen \\Draft)"
                }
                continue
            }
            let bytes = Array(flag.rawValue.utf8)
            let forbidden = Set("(){ %*\"\\]".utf8)
            if bytes.isEmpty || bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F || forbidden.contains($0) }) {
                return "the keyword \(flag.rawValue.debugDescription) is not an atom"
            }
        }
        return nil
    }
}

/// The QRESYNC parameter of SELECT and EXAMINE (RFC 7162 3.2.5):
/// `(uidvalidity mod-sequence [known-uids [(known-sequence-set known-uid-set)]])`; the sequence
/// match data is read and not used (this server reports every vanished UID of the range anyway).
struct Resynchronizing: Equatable {
    var uidValidity: UInt32
    var modificationSequence: UInt64
    var knownUIDs: SequenceSet?

    init?(_ value: ByteString) {
        var text = Substring(value.string)
        guard text.first == "(", text.last == ")" else { return nil }
        text = text.dropFirst().dropLast()
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
        guard parts.count >= 2, let validity = UInt32(parts[0]), validity > 0, let modseq = UInt64(parts[1]), modseq > 0
        else { return nil }
        uidValidity = validity
        modificationSequence = modseq
        if parts.count >= 3 {
            var cursor = ByteCursor(String(parts[2]))
            guard let known = try? cursor.parseSequenceSet(), cursor.isAtEnd else { return nil }
            knownUIDs = known
        }
    }
}
