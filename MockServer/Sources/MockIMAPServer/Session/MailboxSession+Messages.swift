import IMAPCore

extension MailboxSession {
    // MARK: - FETCH

    // RFC 3501 6.4.5 / 6.4.8, RFC 3516 (BINARY), RFC 7162 3.1.4 (CHANGEDSINCE, MODSEQ), RFC 8970
    /// ```
    /// C: a5 UID FETCH 4827:4829 (FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)])
    /// S: * 1 FETCH (UID 4827 FLAGS (\Seen) BODY[HEADER.FIELDS (SUBJECT)] {27}
    /// S: Subject: Invoice #1364
    /// S:
    /// S: )
    /// S: a5 OK FETCH completed
    /// ```
    /// Fetching BODY[...] or RFC822(.TEXT) without PEEK sets `\Seen` (RFC 3501 6.4.5) and the
    /// response then carries the new FLAGS.
    mutating func fetch(
        _ set: SequenceSet, _ attributes: [FetchAttribute], modifiers: [FetchModifier], byUID: Bool
    ) -> Reply {
        guard var view = selected else { return .bad("no mailbox is selected") }
        guard !set.isLastSearchResult else { return Self.noSavedSearch }
        var changedSince: UInt64?
        var reportsVanished = false
        for modifier in modifiers {
            switch modifier {
            case .changedSince(let value):
                changedSince = value
                condStoreEnabled = true
            case .vanished:
                guard qresyncEnabled else { return .bad("VANISHED needs ENABLE QRESYNC first") }
                reportsVanished = true
            }
        }
        // RFC 7162 3.2.6: VANISHED only in a UID FETCH with CHANGEDSINCE.
        if reportsVanished && (!byUID || changedSince == nil) {
            return .bad("the VANISHED modifier needs UID FETCH with CHANGEDSINCE")
        }
        if attributes.contains(.modificationSequence) { condStoreEnabled = true }
        let indexes: [Int]
        switch targetIndexes(set, byUID: byUID, in: view) {
        case .success(let found): indexes = found
        case .failure(let error): return .bad(error.message)
        }
        guard var record = store.snapshot(user: user, mailbox: view.name) else {
            return .no("the mailbox is gone", code: Self.code("NONEXISTENT"))
        }
        var targets: [(sequenceNumber: UInt32, uid: UInt32)] = []
        for index in indexes {
            let uid = view.uids[index]
            guard let recordIndex = record.index(ofUID: uid) else { continue }
            if let changedSince, record.messages[recordIndex].modificationSequence <= changedSince { continue }
            targets.append((UInt32(index + 1), uid))
        }

        // Mark read first, in one step, so the FETCH responses show the new flags.
        var newlySeen = Set<UInt32>()
        if !view.isReadOnly && attributes.contains(where: \.setsSeen) {
            let unseen = targets.map(\.uid).filter { uid in
                record.index(ofUID: uid).map { !record.messages[$0].has(.seen) } ?? false
            }
            if !unseen.isEmpty {
                let changed = try? store.update(user: user, mailbox: view.name) { record -> [UInt32: UInt64] in
                    let modificationSequence = record.nextModificationSequence()
                    var changed: [UInt32: UInt64] = [:]
                    for uid in unseen {
                        guard let index = record.index(ofUID: uid), !record.messages[index].has(.seen) else { continue }
                        record.messages[index].flags.append(.seen)
                        record.messages[index].modificationSequence = modificationSequence
                        changed[uid] = modificationSequence
                    }
                    return changed
                }
                for (uid, modificationSequence) in changed ?? [:] {
                    view.ownChanges[uid] = modificationSequence
                    newlySeen.insert(uid)
                }
                record = store.snapshot(user: user, mailbox: view.name) ?? record
            }
        }
        selected = view

        var untagged: [Response] = []
        untagged.reserveCapacity(targets.count)
        if reportsVanished, let gone = Self.vanished(in: set, from: record) {
            untagged.append(.untagged(.vanished(earlier: true, gone)))
        }
        var unknownEncoding = false
        for target in targets {
            guard let recordIndex = record.index(ofUID: target.uid) else { continue }
            let message = record.messages[recordIndex]
            var items: [MessageAttribute] = []
            if byUID && !attributes.contains(.uid) { items.append(.uid(message.uid)) }
            for attribute in attributes {
                guard let item = fetchItem(attribute, message, view: view) else {
                    unknownEncoding = true
                    continue
                }
                items.append(item)
            }
            if items.isEmpty {
                // Every item was BINARY of a part with an unknown encoding; a FETCH response
                // needs one item (RFC 3501 msg-att), so the UID, as Dovecot sends.
                items.append(.uid(message.uid))
            }
            if newlySeen.contains(message.uid) && !attributes.contains(.flags) {
                items.append(.flags(flagsWithRecent(message, view: view)))
            }
            if (changedSince != nil || (condStoreEnabled && newlySeen.contains(message.uid)))
                && !attributes.contains(.modificationSequence)
            {
                items.append(.modificationSequence(message.modificationSequence))
            }
            untagged.append(.untagged(.fetch(FetchResponse(sequenceNumber: target.sequenceNumber, attributes: items))))
        }
        if unknownEncoding {
            // RFC 3516 4.3: BINARY of a part whose transfer encoding cannot be decoded.
            var reply = Reply.no("a part has an unknown Content-Transfer-Encoding", code: Self.code("UNKNOWN-CTE"))
            reply.untagged = untagged
            return reply
        }
        return .ok("FETCH completed", untagged: untagged)
    }

    /// The UIDs of `set` below UIDNEXT that are not in the mailbox (expunged, or never used),
    /// for `VANISHED (EARLIER)`; nil when there are none. The server keeps no record of when a
    /// message went, so every one of them is reported, which RFC 7162 3.2.5.1 and 3.2.6 allow
    /// (a client ignores UIDs it does not know).
    static func vanished(in set: SequenceSet?, from record: MailboxRecord) -> SequenceSet? {
        let top = record.uidNext > 0 ? record.uidNext - 1 : 0
        guard top > 0 else { return nil }
        let present = Set(record.messages.map(\.uid))
        var gone: [UInt32] = []
        for uid in 1...top where !present.contains(uid) && (set?.contains(uid, largest: top) ?? true) {
            gone.append(uid)
        }
        return gone.isEmpty ? nil : SequenceSet(numbers: gone)
    }

    /// One FETCH item of one message; nil for BINARY of a part with an unknown transfer encoding.
    func fetchItem(
        _ attribute: FetchAttribute, _ message: StoredMessage, view: SelectedMailboxView
    )
        -> MessageAttribute?
    {
        let content = message.message
        switch attribute {
        case .envelope: return .envelope(content.envelope)
        case .flags: return .flags(flagsWithRecent(message, view: view))
        case .internalDate: return .internalDate(message.internalDate)
        case .rfc822Size: return .rfc822Size(UInt64(content.size))
        case .rfc822: return .rfc822(content.section(.complete).map { ByteString(Self.withoutNUL($0)) })
        case .rfc822Header: return .rfc822Header(content.section(.header).map { ByteString(Self.withoutNUL($0)) })
        case .rfc822Text: return .rfc822Text(content.section(.text).map { ByteString(Self.withoutNUL($0)) })
        case .bodyStructure(let extensions):
            let structure = content.bodyStructure(extensible: extensions)
            return extensions ? .bodyStructure(structure) : .body(structure)
        case .uid: return .uid(message.uid)
        case .bodySection(_, let section, let partial):
            // A part that does not exist is empty, as Dovecot answers (not NIL).
            let data = Self.withoutNUL(content.section(section) ?? [])
            return .bodySection(
                section, origin: partial.map { UInt32(clamping: $0.offset) }, Self.slice(data, partial))
        case .binary(_, let part, let partial):
            let data: [UInt8]
            switch content.binarySection(part) {
            case .success(let bytes): data = bytes
            case .failure(.noSuchPart): data = []
            case .failure(.unknownTransferEncoding): return nil
            }
            return .binary(part: part, origin: partial.map { UInt32(clamping: $0.offset) }, Self.slice(data, partial))
        case .binarySize(let part):
            switch content.binarySection(part) {
            case .success(let bytes): return .binarySize(part: part, UInt32(clamping: bytes.count))
            case .failure(.noSuchPart): return .binarySize(part: part, 0)
            case .failure(.unknownTransferEncoding): return nil
            }
        case .preview: return .preview(ByteString(content.preview))
        case .modificationSequence: return .modificationSequence(message.modificationSequence)
        case .gmailMessageID: return .gmailMessageID(UInt64(view.uidValidity) << 32 | UInt64(message.uid))
        case .gmailThreadID: return .gmailThreadID(UInt64(view.uidValidity) << 32 | UInt64(message.uid))
        case .gmailLabels:
            return .gmailLabels(view.name == "INBOX" ? ["\\Inbox"] : [ByteString(view.name)])
        }
    }

    /// `bytes` with every NUL as 0x80, as Dovecot sends them: a literal cannot hold NUL (RFC
    /// 3501 9, `CHAR8`), only BINARY's literal8 can, and a message appended as literal8 may have
    /// NULs in a `binary` part.
    static func withoutNUL(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0) else { return bytes }
        return bytes.map { $0 == 0 ? 0x80 : $0 }
    }

    /// `<offset.length>` of `data` (empty when the offset is past the end).
    static func slice(_ data: [UInt8], _ partial: FetchAttribute.Partial?) -> ByteString {
        guard let partial else { return ByteString(data) }
        let start = Int(clamping: min(partial.offset, UInt64(data.count)))
        let end = start + Int(clamping: min(partial.length, UInt64(data.count - start)))
        return ByteString(data[start..<end])
    }

    // MARK: - STORE

    // RFC 3501 6.4.6, RFC 7162 3.1.3 (UNCHANGEDSINCE, MODIFIED)
    /// ```
    /// C: a6 UID STORE 7 (UNCHANGEDSINCE 12) +FLAGS (\Seen)
    /// S: * 3 FETCH (UID 7 FLAGS (\Seen) MODSEQ (13))
    /// S: a6 OK STORE completed
    /// ```
    mutating func storeFlags(
        _ set: SequenceSet, unchangedSince: UInt64?, _ storeFlags: StoreFlags, byUID: Bool
    ) -> Reply {
        guard var view = selected else { return .bad("no mailbox is selected") }
        guard !set.isLastSearchResult else { return Self.noSavedSearch }
        guard !view.isReadOnly else { return .no("the mailbox is read-only (opened with EXAMINE)", code: .readOnly) }
        if let invalid = FlagValidation.firstInvalid(storeFlags.flags) { return .bad(invalid) }
        if unchangedSince != nil { condStoreEnabled = true }
        let indexes: [Int]
        switch targetIndexes(set, byUID: byUID, in: view) {
        case .success(let found): indexes = found
        case .failure(let error): return .bad(error.message)
        }
        let uids = indexes.map { view.uids[$0] }
        struct Stored: Sendable {
            var uid: UInt32
            var flags: [Flag]
            var modificationSequence: UInt64
            var changed: Bool
        }
        let result = try? store.update(user: user, mailbox: view.name) { record -> ([Stored], [UInt32]) in
            var modificationSequence: UInt64?
            var stored: [Stored] = []
            var refused: [UInt32] = []
            for uid in uids {
                guard let index = record.index(ofUID: uid) else { continue }
                let message = record.messages[index]
                if let unchangedSince, message.modificationSequence > unchangedSince {
                    refused.append(uid)
                    continue
                }
                let updated = Self.apply(storeFlags, to: message.flags)
                let changed = Set(updated) != Set(message.flags)
                if changed {
                    let value = modificationSequence ?? record.nextModificationSequence()
                    modificationSequence = value
                    record.messages[index].flags = updated
                    record.messages[index].modificationSequence = value
                }
                stored.append(
                    Stored(
                        uid: uid, flags: updated, modificationSequence: record.messages[index].modificationSequence,
                        changed: changed))
            }
            if storeFlags.operation != .remove { record.noteKeywords(storeFlags.flags) }
            return (stored, refused)
        }
        guard let (stored, refused) = result else { return .no("the mailbox is gone", code: Self.code("NONEXISTENT")) }
        for item in stored where item.changed { view.ownChanges[item.uid] = item.modificationSequence }
        selected = view
        var untagged: [Response] = []
        for item in stored {
            guard let sequenceNumber = view.sequenceNumber(of: item.uid) else { continue }
            var attributes: [MessageAttribute] = byUID ? [.uid(item.uid)] : []
            if !storeFlags.silent {
                let flags = view.recent.contains(item.uid) ? item.flags + [.recent] : item.flags
                attributes.append(.flags(flags))
            } else if !(condStoreEnabled && item.changed) {
                continue
            }
            if condStoreEnabled { attributes.append(.modificationSequence(item.modificationSequence)) }
            untagged.append(.untagged(.fetch(FetchResponse(sequenceNumber: sequenceNumber, attributes: attributes))))
        }
        guard refused.isEmpty else {
            let numbers = byUID ? refused : refused.compactMap { view.sequenceNumber(of: $0) }
            return .ok("Conditional STORE failed", code: .modified(SequenceSet(numbers: numbers)), untagged: untagged)
        }
        return .ok("STORE completed", untagged: untagged)
    }

    /// The flags after a STORE operation.
    static func apply(_ storeFlags: StoreFlags, to flags: [Flag]) -> [Flag] {
        switch storeFlags.operation {
        case .replace: return storeFlags.flags.normalizedFlags
        case .add: return (flags + storeFlags.flags).normalizedFlags
        case .remove: return flags.filter { !storeFlags.flags.contains($0) }
        }
    }

    // MARK: - COPY, MOVE

    // RFC 3501 6.4.7, RFC 6851 MOVE, RFC 4315 COPYUID
    /// ```
    /// C: a8 UID MOVE 42:43 Archive
    /// S: * OK [COPYUID 432432 42:43 11:12] Moved
    /// S: * 8 EXPUNGE
    /// S: * 8 EXPUNGE
    /// S: a8 OK MOVE completed
    /// ```
    mutating func transfer(_ set: SequenceSet, to mailbox: MailboxName, byUID: Bool, moving: Bool) -> Reply {
        guard var view = selected else { return .bad("no mailbox is selected") }
        guard !set.isLastSearchResult else { return Self.noSavedSearch }
        if moving && view.isReadOnly { return .no("the mailbox is read-only (opened with EXAMINE)", code: .readOnly) }
        let indexes: [Int]
        switch targetIndexes(set, byUID: byUID, in: view) {
        case .success(let found): indexes = found
        case .failure(let error): return .bad(error.message)
        }
        let uids = indexes.map { view.uids[$0] }
        let destination = Self.wireName(mailbox)
        let result: (source: [UInt32], destination: [UInt32], validity: UInt32)
        do {
            result = try store.transfer(user: user, from: view.name, to: destination) {
                (from, to) throws(MockServerError) -> ([UInt32], [UInt32], UInt32) in
                var copiedFrom: [UInt32] = []
                var copiedTo: [UInt32] = []
                var removals: [Int] = []
                for uid in uids {
                    guard let index = from.index(ofUID: uid) else { continue }
                    let message = from.messages[index]
                    let newUID: UInt32
                    if to != nil {
                        newUID = try to!.append(
                            message.message, flags: message.flags, internalDate: message.internalDate)
                    } else {
                        newUID = try from.append(
                            message.message, flags: message.flags, internalDate: message.internalDate)
                    }
                    copiedFrom.append(uid)
                    copiedTo.append(newUID)
                    removals.append(index)
                }
                if moving { _ = from.remove(at: removals) }
                return (copiedFrom, copiedTo, (to ?? from).uidValidity)
            }
        } catch {
            return .no("Mailbox does not exist: \(mailbox)", code: .tryCreate)
        }
        let code: ResponseCode? =
            has(.uidPlus) && !result.source.isEmpty
            ? .copyUID(
                uidValidity: result.validity, source: SequenceSet(numbers: result.source),
                destination: SequenceSet(numbers: result.destination)) : nil
        guard moving else { return .ok("COPY completed", code: code) }
        var untagged: [Response] = []
        if let code { untagged.append(Self.untaggedOK("Moved", code: code)) }
        untagged += removeFromView(&view, uids: result.source)
        selected = view
        return .ok("MOVE completed", untagged: untagged)
    }

    // MARK: - EXPUNGE

    // RFC 3501 6.4.3, RFC 4315 UID EXPUNGE
    mutating func expunge(uids set: SequenceSet?) -> Reply {
        guard var view = selected else { return .bad("no mailbox is selected") }
        guard !view.isReadOnly else { return .no("the mailbox is read-only (opened with EXAMINE)", code: .readOnly) }
        if let set, set.isLastSearchResult { return Self.noSavedSearch }
        let largest = view.uids.last ?? 0
        let removed =
            (try? store.update(user: user, mailbox: view.name) { record -> [UInt32] in
                record.remove(
                    at: record.messages.indices.filter { index in
                        let message = record.messages[index]
                        return message.has(.deleted) && (set?.contains(message.uid, largest: largest) ?? true)
                    })
            }) ?? []
        let untagged = removeFromView(&view, uids: removed)
        selected = view
        return .ok("EXPUNGE completed", untagged: untagged)
    }

    /// Removes `uids` from the view; returns their `* n EXPUNGE`, highest first so each number is
    /// still valid when it arrives, or under QRESYNC one `* VANISHED` of the UIDs (RFC 7162
    /// 3.2.10): how every removal is told, the session's own EXPUNGE and another client's alike.
    func removeFromView(_ view: inout SelectedMailboxView, uids: [UInt32]) -> [Response] {
        let indexes = uids.compactMap { view.sequenceNumber(of: $0).map { Int($0) - 1 } }.sorted(by: >)
        var responses: [Response] = []
        if qresyncEnabled && !indexes.isEmpty {
            responses.append(.untagged(.vanished(earlier: false, SequenceSet(numbers: indexes.map { view.uids[$0] }))))
        }
        for index in indexes {
            if !qresyncEnabled { responses.append(.untagged(.expunge(UInt32(index + 1)))) }
            view.recent.remove(view.uids[index])
            view.uids.remove(at: index)
        }
        return responses
    }

    // MARK: - Helpers

    func targetIndexes(
        _ set: SequenceSet, byUID: Bool, in view: SelectedMailboxView
    ) -> Result<[Int], SelectedMailboxView.SetError> {
        byUID ? .success(view.indexes(ofUIDSet: set)) : view.indexes(ofSequenceSet: set)
    }

    static let noSavedSearch = Reply.bad(
        "$ (a saved search result) needs SEARCHRES, which this server does not announce")
}

extension FetchAttribute {
    /// Whether fetching this sets `\Seen` (RFC 3501 6.4.5).
    var setsSeen: Bool {
        switch self {
        case .rfc822, .rfc822Text: return true
        case .bodySection(let peek, _, _), .binary(let peek, _, _): return !peek
        case .envelope, .flags, .internalDate, .rfc822Size, .rfc822Header, .bodyStructure, .uid, .binarySize, .preview,
            .modificationSequence, .gmailMessageID, .gmailThreadID, .gmailLabels:
            return false
        }
    }
}
