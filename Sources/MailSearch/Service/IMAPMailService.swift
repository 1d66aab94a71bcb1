public import FoundationEssentials
public import IMAPClient
import IMAPCore

/// The ``MailService`` of a real IMAP server, over a long-lived `MailboxConnection` (which
/// reconnects and resynchronises on its own).
///
/// Round trips, after logging in: opening is one SELECT; a listing is one UID SORT (or UID
/// SEARCH) for the order and the total, plus one UID FETCH of the page shown; a search the same.
/// Envelopes are fetched only for the page shown; `BODY.PEEK` and PREVIEW never set `\Seen`.
/// Without PREVIEW the page's FETCH carries the start of each body, from which MailMIME makes the
/// previews (``IMAPSession/fetchSummaries(_:previews:)``): still one FETCH.
///
/// ```
/// C: A3 SELECT INBOX (CONDSTORE)
/// C: A4 UID SORT (REVERSE ARRIVAL) UTF-8 UNDELETED
/// C: A5 UID FETCH 1040,1039,...,991 (UID FLAGS ENVELOPE INTERNALDATE RFC822.SIZE BODYSTRUCTURE PREVIEW)
/// C: A6 UID STORE 1040 (UNCHANGEDSINCE 4711) +FLAGS (\Flagged)
/// ```
///
/// `in:Name` and `in:all` searches run on a second connection that EXAMINEs the mailboxes
/// (read-only), so the open mailbox stays selected on the first.
public actor IMAPMailService: MailService {
    let configuration: IMAPConfiguration
    let credentials: Credentials
    let flagPolicy: FlagPolicy
    let timeZone: TimeZone
    let now: @Sendable () -> Date
    let mailboxName: String
    let reconnectPolicy: MailboxConnection.ReconnectPolicy
    /// The connection to the open mailbox (a new one after ``close()``).
    public internal(set) var connection: MailboxConnection
    var described: MailboxDescription?
    var selected: SelectedMailbox?
    var capabilities: Set<Capability> = []
    var enabled: Set<Capability> = []
    /// The MODSEQ of the messages seen lately (fetch, STORE answers, flag events), for
    /// UNCHANGEDSINCE.
    var modificationSequences = ModificationSequenceCache()
    /// Flag changes, one at a time (see `change`).
    let flagChanges = TakingTurns()
    var pump: Task<Void, Never>?
    var listed = false
    let watchers = Broadcast<MailServiceEvent>(buffering: .bufferingNewest(10_000))
    var others: OtherMailboxes
    /// Where searches of the open mailbox run when they have a connection of their own (nil:
    /// on ``connection``).
    var lane: SearchLane?
    let searchesOnOwnConnection: Bool
    /// Listings of at least this many messages hand a guess of their first page over before the
    /// server has sorted them (``list(pageSize:provisional:)``).
    let provisionalListingMinimum: Int
    /// The account's local index, where the messages shown before are kept, so that showing
    /// them again fetches only their flags (``MessageIndex/keepListed(_:in:uidValidity:)``).
    let index: MessageIndex?
    /// The latest of the writes to the index, each after the one before; ``close()`` waits for it.
    var caching: Task<Void, Never>?
    /// Why the index could not be read or written, the first time it could not (the messages are
    /// then fetched whole from the server, as without one); nil while it works.
    public internal(set) var localStoreProblem: String?
    /// The local index type-ahead answers from, kept in step with the mailbox
    /// (``answerLocally(from:budget:)``); nil: none.
    var follower: IndexFollower?
    /// How long ``localMatches(_:limit:)`` may search (nil: no limit).
    var localBudget: Duration? = MessageIndex.typeAheadBudget
    /// Each catch-up of the followed index (``indexUpdates()``).
    let indexCatchUps = Broadcast<IndexUpdate>()

    /// A service for `mailbox` of the account `credentials` log in to. With `index` (the
    /// account's ``MessageIndex``), a page or listing shows the messages the index holds (those
    /// indexed, and those shown before, which it keeps) with only their flags fetched. With `searchesOnOwnConnection`, searches of the mailbox run
    /// on a second connection that a cancelled search gives up, so a search left for another
    /// never holds up the next one or a page (a screen where people type; ``SearchLane``).
    public init(
        configuration: IMAPConfiguration, credentials: Credentials, mailbox: String = "INBOX",
        flagPolicy: FlagPolicy = FlagPolicy(), reconnectPolicy: MailboxConnection.ReconnectPolicy = .init(),
        timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() },
        provisionalListingMinimum: Int = 2000, index: MessageIndex? = nil,
        searchesOnOwnConnection: Bool = false
    ) {
        self.searchesOnOwnConnection = searchesOnOwnConnection
        self.provisionalListingMinimum = provisionalListingMinimum
        self.index = index
        self.configuration = configuration
        self.credentials = credentials
        self.flagPolicy = flagPolicy
        self.timeZone = timeZone
        self.now = now
        self.mailboxName = mailbox
        self.reconnectPolicy = reconnectPolicy
        self.connection = MailboxConnection(
            configuration: configuration, credentials: credentials, mailbox: MailboxName(wire: mailbox),
            policy: reconnectPolicy)
        self.others = OtherMailboxes(configuration: configuration, credentials: credentials)
    }

    deinit {
        pump?.cancel()
        watchers.finish()
    }

    // MARK: - Opening

    public func open() async throws(MailServiceError) -> MailboxDescription {
        let mailbox: SelectedMailbox
        do {
            mailbox = try await connection.open()
            let session = try await connection.currentSession()
            capabilities = await session.capabilities
            enabled = await session.enabled
        } catch {
            throw MailServiceError(error, openingAt: "\(configuration.host):\(configuration.port)")
        }
        // Listening for changes starts after the first listing or search (see
        // startPumpIfWatched), and only when someone asked for events().
        let description = describe(mailbox)
        // Whatever changed while the mailbox was closed reaches the followed index.
        await indexChanged()
        return description
    }

    /// The compiler's view of the server and the open mailbox.
    public func searchContext() async throws(MailServiceError) -> SearchContext {
        if selected == nil { _ = try await open() }
        return context()
    }

    func describe(_ mailbox: SelectedMailbox) -> MailboxDescription {
        if let old = selected, old.uidValidity != mailbox.uidValidity {
            modificationSequences = ModificationSequenceCache()
        }
        selected = mailbox
        let pin = context().pinFlag
        let description = MailboxDescription(
            name: mailbox.name.description, uidValidity: mailbox.uidValidity ?? 0,
            messageCount: Int(mailbox.messageCount), pinFlag: pin.flag, pinWarning: pin.warning,
            isReadOnly: mailbox.isReadOnly)
        described = description
        return description
    }

    func context() -> SearchContext {
        let today = SearchContext.day(of: now(), in: timeZone)
        guard let selected else {
            return SearchContext(capabilities: capabilities, flagPolicy: flagPolicy, today: today)
        }
        return SearchContext(
            capabilities: capabilities, enabledCapabilities: enabled, mailbox: selected, flagPolicy: flagPolicy,
            today: today)
    }

    func openDescription() async throws(MailServiceError) -> MailboxDescription {
        if let described { return described }
        return try await open()
    }

    // MARK: - Listing and searching

    public func list(pageSize: Int) async throws(MailServiceError) -> EmailPage {
        let list = try await listing()
        return try await page(of: list, offset: 0, pageSize: pageSize)
    }

    /// The first page, with a guess of it handed to `provisional` first when the server sorts and
    /// the mailbox holds at least `provisionalListingMinimum` messages (2,000 unless set).
    ///
    /// The guess is the messages with the highest sequence numbers, which are the newest by
    /// arrival unless some came with an older INTERNALDATE (moved or appended mail): one UID
    /// SEARCH of those numbers and one UID FETCH, sent before the UID SORT, where the server takes
    /// far longer to sort a large mailbox (100,000 messages: 100-170 ms on Dovecot 2.3). When the
    /// sorted first page holds the same messages, their summaries are not fetched again.
    ///
    /// ```
    /// C: A4 UID SEARCH RETURN (COUNT ALL) 99952:100001
    /// C: A5 UID FETCH 100001:99952 (UID FLAGS ENVELOPE ...)     -> provisional
    /// C: A6 UID SORT (REVERSE ARRIVAL) UTF-8 ALL                -> the page, from A5's summaries
    /// ```
    public func list(
        pageSize: Int, provisional: @escaping @Sendable (EmailPage) async -> Void
    ) async throws(MailServiceError) -> EmailPage {
        let description = try await openDescription()
        let count = Int(await connection.selectedMailbox?.messageCount ?? UInt32(description.messageCount))
        var guessed: [Email.ID: Email] = [:]
        if pageSize > 0, count >= max(provisionalListingMinimum, 1), capabilities.contains(.sort) {
            // A guess that fails is no failed listing: the listing below reports real trouble.
            if let guess = try? await newest(bySequence: pageSize, of: count, description), !guess.emails.isEmpty {
                for email in guess.emails { guessed[email.id] = email }
                await provisional(guess)
            }
        }
        let list = try await listing()
        let first = list.ids.prefix(max(pageSize, 1))
        if !guessed.isEmpty, first.allSatisfy({ guessed[$0] != nil }) {
            return EmailPage(
                list: list, offset: 0,
                emails: Self.visible(first.compactMap { guessed[$0] }, hidingDeleted: list.hidesDeleted))
        }
        return try await page(of: list, offset: 0, pageSize: pageSize)
    }

    /// The messages with the `pageSize` highest sequence numbers of `count`, highest first.
    func newest(
        bySequence pageSize: Int, of count: Int, _ description: MailboxDescription
    ) async throws(MailServiceError) -> EmailPage {
        let numbers = SequenceSet(UInt32(max(1, count - pageSize + 1))...UInt32(count))
        let found: SearchResult
        do { found = try await connection.search([.sequenceNumbers(numbers)], ordered: false) } catch {
            throw MailServiceError(error)
        }
        let list = MessageList(ids: ids(found.uids.sorted(by: >), in: description), hidesDeleted: true)
        return try await page(of: list, offset: 0, pageSize: pageSize)
    }

    /// The mailbox's messages newest first, without fetching any: one UID SORT (or SEARCH).
    /// Fetch them with ``page(of:offset:pageSize:)`` or ``emails(of:offset:count:batches:)``.
    public func listing() async throws(MailServiceError) -> MessageList {
        let description = try await openDescription()
        let found: SearchResult
        let pinned: SearchResult
        let pinKey: SearchKey = description.pinFlag == .flagged ? .flagged : .keyword(description.pinFlag)
        // Both in one round trip: the pinned ones (few, unsorted) ride along with the listing.
        async let everyMessage = connection.search([.all])
        async let pinnedMessages = connection.search([pinKey, .undeleted], ordered: false)
        do {
            found = try await everyMessage
            pinned = try await pinnedMessages
        } catch let error as IMAPError {
            throw MailServiceError(error)
        } catch {
            throw MailServiceError(.server, "listing the mailbox failed: \(error)")
        }
        let listedIDs = ids(found.uids, in: await current(description))
        let pinnedUIDs = Set(pinned.uids)
        let list = MessageList(
            ids: listedIDs, total: found.count, hidesDeleted: true,
            pinned: pinnedUIDs.isEmpty ? [] : listedIDs.filter { pinnedUIDs.contains($0.uid) })
        listed = true
        await startPumpIfWatched()
        return list
    }

    /// One UID SEARCH UNSEEN UNDELETED, unsorted (a sort would cost as much as the listing's).
    public func unreadUIDs() async throws(MailServiceError) -> [UInt32]? {
        _ = try await openDescription()
        do { return try await connection.search([.unseen, .undeleted], ordered: false).uids } catch {
            throw MailServiceError(error)
        }
    }

    public func search(_ query: Query, pageSize: Int) async throws(MailServiceError) -> EmailPage {
        let (list, warnings) = try await searching(query)
        var page = try await page(of: list, offset: 0, pageSize: pageSize)
        page.warnings = warnings
        return page
    }

    /// The messages matching `query`, newest first, without fetching any (one UID SORT or
    /// SEARCH), and the compiler's warnings.
    public func searching(_ query: Query) async throws(MailServiceError) -> (list: MessageList, warnings: [String]) {
        let description = try await openDescription()
        let searchContext = context()
        let compiled: CompiledSearch
        do { compiled = try QueryCompiler.compile(query, context: searchContext) } catch {
            throw MailServiceError(error)
        }
        let list: MessageList
        switch compiled.scope {
        case .current:
            list = try await searchHere(compiled, description)
        case .mailbox(let name)
        where name == description.name || (name.uppercased() == "INBOX" && description.name == "INBOX"):
            list = try await searchHere(compiled, description)
        case .mailbox(let name):
            list = try await others.search(compiled.programKeys, in: [name])
        case .allMailboxes:
            list = try await others.searchEverywhere(compiled.programKeys)
        }
        listed = true
        await startPumpIfWatched()
        return (list, compiled.warnings.map(\.message))
    }

    func searchHere(
        _ compiled: CompiledSearch, _ description: MailboxDescription
    ) async throws(MailServiceError)
        -> MessageList
    {
        let found: SearchResult
        do {
            if searchesOnOwnConnection {
                found = try await searchLane().search(compiled.programKeys)
            } else {
                found = try await connection.search(compiled.programKeys)
            }
        } catch {
            throw MailServiceError(error)
        }
        return MessageList(ids: ids(found.uids, in: await current(description)), total: found.count)
    }

    func searchLane() -> SearchLane {
        if let lane { return lane }
        let made = SearchLane(
            configuration: configuration, credentials: credentials, mailbox: MailboxName(wire: mailboxName),
            policy: reconnectPolicy.retriesForever ? .init() : reconnectPolicy)
        lane = made
        return made
    }

    /// The mailbox as the connection has it selected now: a call retried after a reconnect may
    /// have run in a re-created mailbox, whose UIDs carry the new UIDVALIDITY.
    func current(_ description: MailboxDescription) async -> MailboxDescription {
        guard let now = await connection.selectedMailbox, now.uidValidity != selected?.uidValidity else {
            return described ?? description
        }
        return describe(now)
    }

    func ids(_ uids: [UInt32], in description: MailboxDescription) -> [Email.ID] {
        uids.map { Email.ID(mailbox: description.name, uidValidity: description.uidValidity, uid: $0) }
    }

    public func page(of list: MessageList, offset: Int, pageSize: Int) async throws(MailServiceError) -> EmailPage {
        let description = try await openDescription()
        let start = max(0, min(offset, list.ids.count))
        let wanted = Array(list.ids[start..<min(list.ids.count, start + max(pageSize, 1))])
        var found: [Email.ID: Email] = [:]
        let here = wanted.filter { $0.mailbox == description.name }
        if !here.isEmpty {
            if here.contains(where: { $0.uidValidity != description.uidValidity }) {
                throw MailServiceError(
                    .mailboxChanged, "\(description.name) was re-created on the server since it was listed; reload it")
            }
            let (cached, missing) = try await cachedEmails(here.map(\.uid), description)
            for email in cached.values { found[email.id] = email }
            if !missing.isEmpty {
                let summaries: [MessageSummary]
                do {
                    summaries = try await connection.summaries(SequenceSet(numbers: missing))
                } catch {
                    throw MailServiceError(error)
                }
                let pinFlag = description.pinFlag
                var fetched: [Email] = []
                for summary in summaries {
                    if let modseq = summary.modificationSequence { modificationSequences[summary.uid] = modseq }
                    let email = Self.email(
                        summary, mailbox: description.name, uidValidity: description.uidValidity, pinFlag)
                    found[email.id] = email
                    fetched.append(email)
                }
                keep(fetched, description)
            }
        }
        let elsewhere = wanted.filter { $0.mailbox != description.name }
        if !elsewhere.isEmpty {
            for email in try await others.emails(elsewhere, pinFlag: description.pinFlag) { found[email.id] = email }
        }
        let emails = Self.visible(wanted.compactMap { found[$0] }, hidingDeleted: list.hidesDeleted)
        return EmailPage(list: list, offset: start, emails: emails)
    }

    /// The emails of `list` from `offset`, at most `count`, handed to `body` in batches in the
    /// list's order as they arrive: the UID FETCH streams in windows (two in flight) and a
    /// listing of thousands is never held whole. Messages gone meanwhile are left out, and
    /// deleted ones when the list hides them. Messages of other mailboxes (an `in:all` search)
    /// are fetched page by page.
    public func emails(
        of list: MessageList, offset: Int, count: Int, batches body: @Sendable ([Email]) async -> Void
    ) async throws(MailServiceError) {
        let description = try await openDescription()
        let start = max(0, min(offset, list.ids.count))
        let wanted = list.ids[start..<min(list.ids.count, start + max(count, 0))]
        guard !wanted.isEmpty else { return }
        guard wanted.allSatisfy({ $0.mailbox == description.name }) else {
            var done = 0
            while done < wanted.count {
                let page = try await page(of: list, offset: start + done, pageSize: min(1000, wanted.count - done))
                await body(page.emails)
                done += 1000
            }
            return
        }
        if wanted.contains(where: { $0.uidValidity != description.uidValidity }) {
            throw MailServiceError(
                .mailboxChanged, "\(description.name) was re-created on the server since it was listed; reload it")
        }
        let (name, uidValidity, pinFlag, hidesDeleted) =
            (description.name, description.uidValidity, description.pinFlag, list.hidesDeleted)
        let uids = wanted.map(\.uid)
        let (cached, missing) = try await cachedEmails(uids, description)
        let merge = CachedMerge(uids: uids, cached: cached)
        if !missing.isEmpty {
            do {
                try await connection.summaries(inOrder: missing) { summaries in
                    // Each summary is moved out of the batch the connection handed over (iterating
                    // would copy each one, retaining every string it holds, and release them all
                    // again), last first.
                    var summaries = summaries
                    var emails: [Email] = []
                    var modificationSequences: [(UInt32, UInt64)] = []
                    emails.reserveCapacity(summaries.count)
                    modificationSequences.reserveCapacity(summaries.count)
                    while let summary = summaries.popLast() {
                        if let modificationSequence = summary.modificationSequence {
                            modificationSequences.append((summary.uid, modificationSequence))
                        }
                        emails.append(Self.email(summary, mailbox: name, uidValidity: uidValidity, pinFlag))
                    }
                    // Back in order, moved (Array.reverse() copies each email through a swap).
                    var inOrder: [Email] = []
                    inOrder.reserveCapacity(emails.count)
                    while let email = emails.popLast() { inOrder.append(email) }
                    emails = inOrder
                    await self.remember(modificationSequences)
                    await self.keep(emails, description)
                    let ready = merge.take(fetched: emails)
                    if !ready.isEmpty { await body(Self.visible(ready, hidingDeleted: hidesDeleted)) }
                }
            } catch {
                throw MailServiceError(error)
            }
        }
        // The cached messages after the last one fetched (all of them when none was missing),
        // in batches the size of a fetch's.
        let rest = merge.rest()
        for start in stride(from: 0, to: rest.count, by: 250) {
            await body(Self.visible(Array(rest[start..<min(rest.count, start + 250)]), hidingDeleted: hidesDeleted))
        }
    }

    /// `emails` as a list shows them: without the ones marked deleted when it hides those (the
    /// same array when none is: filtering copies every email).
    static func visible(_ emails: [Email], hidingDeleted: Bool) -> [Email] {
        guard hidingDeleted,
            emails.withUnsafeBufferPointer({ emails in
                emails.indices.contains { emails[$0].flags.contains(.deleted) }
            })
        else { return emails }
        return emails.filter { !$0.flags.contains(.deleted) }
    }

    func remember(_ modificationSequences: [(UInt32, UInt64)]) {
        for (uid, modseq) in modificationSequences { self.modificationSequences[uid] = modseq }
    }

    static func email(
        _ summary: borrowing MessageSummary, mailbox: String, uidValidity: UInt32, _ pinFlag: Flag
    ) -> Email {
        Email(
            id: Email.ID(mailbox: mailbox, uidValidity: uidValidity, uid: summary.uid), summary: summary.decoded,
            receivedDate: summary.internalDate.map { Date(timeIntervalSince1970: TimeInterval($0.secondsSinceEpoch)) },
            flags: summary.flags, pinFlag: pinFlag)
    }

}
