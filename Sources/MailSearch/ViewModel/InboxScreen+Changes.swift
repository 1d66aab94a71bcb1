import IMAPCore

extension InboxScreen {
    // MARK: - Read and pin

    /// The Read/Unread or Pin/Unpin action on message `id`.
    mutating func toggle(_ kind: FlagKind, _ id: Email.ID) -> [InboxAction] {
        guard let email = email(id) else { return [] }
        let isReadOnly = listing.mailbox?.isReadOnly == true && id.mailbox == listing.mailbox?.name
        return flagsChanged(.toggle(kind, email, isReadOnly: isReadOnly))
    }

    /// Feeds `event` to the flag changes and performs what they ask: rows show new flags in
    /// both lists, changes are sent, refusals and failures are told.
    mutating func flagsChanged(_ event: FlagChanges.Event) -> [InboxAction] {
        var actions: [InboxAction] = []
        for action in flags.event(event, pinFlag: listing.pinFlag) {
            switch action {
            case .send(let change):
                switch change.kind {
                case .read: actions.append(.effect(.setRead(change.emails, change.value, change: change.id)))
                case .pin: actions.append(.effect(.setPinned(change.emails, change.value, change: change.id)))
                }
            case .show(let id, let flags):
                _ = search.event(.flagsShown(id, flags, pinFlag: listing.pinFlag))
                _ = listing.event(.flagsShown(id, flags, row: search.results.window.email(id)))
            case .refused(let change, let reasons):
                let sentences = change.emails.compactMap { id in
                    reasons[id].map { "Could not \(FlagChanges.verb(change)) \(describe(id)): \($0)." }
                }
                actions.append(.notice(InboxNotice(.flagChangeRolledBack, sentences.joined(separator: " "))))
            case .failed(let change, let error):
                let what = change.emails.count == 1 ? describe(change.emails[0]) : "\(change.emails.count) messages"
                actions.append(
                    .notice(
                        InboxNotice(
                            .flagChangeRolledBack, "Could not \(FlagChanges.verb(change)) \(what): \(error.message)")))
            case .readOnly(let change):
                let subject = change.emails.first.flatMap(email)?.subject ?? ""
                actions.append(
                    .notice(
                        InboxNotice(
                            .flagChangeRolledBack,
                            "Could not \(FlagChanges.verb(change)) “\(subject)”: the mailbox is read-only.")))
            case .adopted:
                continue
            }
        }
        return actions
    }

    private func describe(_ id: Email.ID) -> String {
        guard let subject = email(id)?.subject, !subject.isEmpty else { return "the message" }
        return "“\(subject)”"
    }

    // MARK: - Live changes

    /// Something happened in the open mailbox.
    mutating func mailboxChanged(_ change: MailServiceEvent) -> [InboxAction] {
        log.event(.happened(change))
        switch change {
        case .arrived(let emails):
            return listing.event(.arrived(emails))
        case .expunged(let ids):
            let removed = Set(ids)
            _ = listing.event(.expunged(removed))
            _ = search.event(.expunged(removed))
            // The rows shown may now be on a page not held: ask for it.
            return windowsChanged()
        case .flagsChanged(let id, let flags):
            // The lists show what `list` shows: no message marked deleted, live.
            if flags.contains(.deleted) {
                _ = listing.event(.hidden(id))
                _ = search.event(.hidden(id))
                return windowsChanged()
            }
            let wasHidden = listing.inbox.window.isHidden(id) || search.results.window.isHidden(id)
            if wasHidden {
                _ = listing.event(.unhidden(id, flags))
                _ = search.event(.unhidden(id, flags, pinFlag: listing.pinFlag))
            }
            let actions = flagsChanged(.changedElsewhere(id, flags))
            return wasHidden ? actions + windowsChanged() : actions
        case .reloadNeeded(let reason):
            // What was listed may no longer exist (a re-created mailbox): open again, list
            // again, and run the shown search again.
            var actions = [InboxAction.notice(InboxNotice(.reloaded, "Reloading: \(reason)."))]
            guard listing.connection != .closed else { return actions }
            actions += listing.event(.reload)
            switch search.searchState {
            case .results, .searching:
                guard let text = search.searchedQuery else { break }
                _ = field.event(.typed(text))
                actions += search.event(.submit(text)).filter { $0 != .effect(.recordHistory(text)) }
            case .empty, .error:
                break
            }
            return actions
        case .connectionLost(let reason):
            // The first word of an outage is a notice; a later one (offline, retrying) replaces
            // it, or, once the person dismissed it, only the status.
            let wasReconnecting: Bool
            if case .reconnecting = listing.connection { wasReconnecting = true } else { wasReconnecting = false }
            _ = listing.event(.connectionLost(reason))
            guard !wasReconnecting || notice?.kind == .connection else { return [] }
            return [.notice(InboxNotice(.connection, reason))]
        case .connectionRestored:
            _ = listing.event(.connectionRestored)
            if notice?.kind == .connection { notice = nil }
            return []
        case .failed(let error):
            _ = listing.event(.connectionFailed(error))
            return [.notice(InboxNotice(.connection, error.message))]
        case .alert(let text):
            return [.notice(InboxNotice(.alert, text))]
        }
    }
}
