public import FoundationEssentials
public import IMAPClient
import IMAPCore
import Synchronization

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
/// C: A6 UID STORE 1040 (UNCHANGEDSINCE 4711) +FLAGS.SILENT (\Flagged)
/// ```
///
/// `in:Name` and `in:all` searches run on a second connection that EXAMINEs the mailboxes
/// (read-only), so the open mailbox stays selected on the first.
public actor IMAPMailService: MailService {
    private let configuration: IMAPConfiguration
    private let credentials: Credentials
    private let flagPolicy: FlagPolicy
    private let timeZone: TimeZone
    private let now: @Sendable () -> Date
    private let mailboxName: String
    private let reconnectPolicy: MailboxConnection.ReconnectPolicy
    /// The connection to the open mailbox (a new one after ``close()``).
    public private(set) var connection: MailboxConnection
    private var described: MailboxDescription?
    private var selected: SelectedMailbox?
    private var capabilities: Set<Capability> = []
    private var enabled: Set<Capability> = []
    /// The MODSEQ of the messages seen lately (fetch, STORE answers, flag events), for
    /// UNCHANGEDSINCE.
    private var modificationSequences = ModificationSequenceCache()
    /// Flag changes, one at a time (see `change`).
    private let flagChanges = TakingTurns()
    private var pump: Task<Void, Never>?
    private var listed = false
    private let watchers = Mutex<[UInt64: AsyncStream<MailServiceEvent>.Continuation]>([:])
    private let nextWatcher = Atomic<UInt64>(0)
    private var others: OtherMailboxes
    /// Where searches of the open mailbox run when they have a connection of their own (nil:
    /// on ``connection``).
    private var lane: SearchLane?
    private let searchesOnOwnConnection: Bool
    /// Listings of at least this many messages hand a guess of their first page over before the
    /// server has sorted them (``list(pageSize:provisional:)``).
    private let provisionalListingMinimum: Int
    /// Messages shown before, so that showing them again fetches only their flags.
    private let summaryCache: SummaryCache?
    /// The latest of the cache writes, each after the one before; ``close()`` waits for it.
    private var caching: Task<Void, Never>?

    /// A service for `mailbox` of the account `credentials` log in to. With `summaryCache`, the
    /// messages a page or listing shows are kept there, and shown again with only their flags
    /// fetched (``SummaryCache``). With `searchesOnOwnConnection`, searches of the mailbox run
    /// on a second connection that a cancelled search gives up, so a search left for another
    /// never holds up the next one or a page (a screen where people type; ``SearchLane``).
    public init(
        configuration: IMAPConfiguration, credentials: Credentials, mailbox: String = "INBOX",
        flagPolicy: FlagPolicy = FlagPolicy(), reconnectPolicy: MailboxConnection.ReconnectPolicy = .init(),
        timeZone: TimeZone = .current, now: @escaping @Sendable () -> Date = { Date() },
        provisionalListingMinimum: Int = 2000, summaryCache: SummaryCache? = nil,
        searchesOnOwnConnection: Bool = false
    ) {
        self.searchesOnOwnConnection = searchesOnOwnConnection
        self.provisionalListingMinimum = provisionalListingMinimum
        self.summaryCache = summaryCache
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
        for watcher in watchers.withLock({ $0.values }) { watcher.finish() }
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
            throw MailServiceError(error)
        }
        // Listening for changes starts after the first listing or search (see
        // startPumpIfWatched), and only when someone asked for events().
        return describe(mailbox)
    }

    /// The compiler's view of the server and the open mailbox.
    public func searchContext() async throws(MailServiceError) -> SearchContext {
        if selected == nil { _ = try await open() }
        return context()
    }

    private func describe(_ mailbox: SelectedMailbox) -> MailboxDescription {
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

    private func context() -> SearchContext {
        let today = SearchContext.day(of: now(), in: timeZone)
        guard let selected else {
            return SearchContext(capabilities: capabilities, flagPolicy: flagPolicy, today: today)
        }
        return SearchContext(
            capabilities: capabilities, enabledCapabilities: enabled, mailbox: selected, flagPolicy: flagPolicy,
            today: today)
    }

    private func openDescription() async throws(MailServiceError) -> MailboxDescription {
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
    private func newest(
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

    private func searchHere(
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

    private func searchLane() -> SearchLane {
        if let lane { return lane }
        let made = SearchLane(
            configuration: configuration, credentials: credentials, mailbox: MailboxName(wire: mailboxName),
            policy: reconnectPolicy.retriesForever ? .init() : reconnectPolicy)
        lane = made
        return made
    }

    /// The mailbox as the connection has it selected now: a call retried after a reconnect may
    /// have run in a re-created mailbox, whose UIDs carry the new UIDVALIDITY.
    private func current(_ description: MailboxDescription) async -> MailboxDescription {
        guard let now = await connection.selectedMailbox, now.uidValidity != selected?.uidValidity else {
            return described ?? description
        }
        return describe(now)
    }

    private func ids(_ uids: [UInt32], in description: MailboxDescription) -> [Email.ID] {
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
    private static func visible(_ emails: [Email], hidingDeleted: Bool) -> [Email] {
        guard hidingDeleted,
            emails.withUnsafeBufferPointer({ emails in
                emails.indices.contains { emails[$0].flags.contains(.deleted) }
            })
        else { return emails }
        return emails.filter { !$0.flags.contains(.deleted) }
    }

    private func remember(_ modificationSequences: [(UInt32, UInt64)]) {
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

    // MARK: - The summary cache

    private func cacheKey(_ description: MailboxDescription) -> SummaryCache.Key {
        let user: String
        switch credentials {
        case .password(let name, _), .oauth2(let name, _): user = name
        }
        return SummaryCache.Key(
            account: "\(user)@\(configuration.host):\(configuration.port)", mailbox: description.name,
            uidValidity: description.uidValidity)
    }

    /// The messages among `uids` of the open mailbox that the cache holds, as emails with the
    /// flags the server has now (one UID FETCH of flags; a message gone meanwhile is left out),
    /// and the UIDs it does not hold, in their order.
    private func cachedEmails(
        _ uids: [UInt32], _ description: MailboxDescription
    ) async throws(MailServiceError) -> (emails: [UInt32: Email], missing: [UInt32]) {
        guard let summaryCache else { return ([:], uids) }
        let cached = await summaryCache.messages(uids, under: cacheKey(description))
        guard !cached.isEmpty else { return ([:], uids) }
        let flags = try await currentFlags(SequenceSet(numbers: cached.keys.sorted()))
        var emails: [UInt32: Email] = [:]
        emails.reserveCapacity(cached.count)
        for (uid, message) in cached {
            guard let current = flags[uid] else { continue }
            emails[uid] = message.email(
                mailbox: description.name, uidValidity: description.uidValidity, flags: current,
                pinFlag: description.pinFlag)
        }
        return (emails, uids.filter { cached[$0] == nil })
    }

    /// Stores `emails` in the cache, after the writes started before (the caller does not wait;
    /// ``close()`` does).
    private func keep(_ emails: [Email], _ description: MailboxDescription) {
        guard let summaryCache, !emails.isEmpty else { return }
        let (key, messages, previous) = (cacheKey(description), emails.map(CachedMessage.init), caching)
        caching = Task {
            await previous?.value
            await summaryCache.store(messages, under: key)
        }
    }

    // MARK: - Flags

    public func setRead(_ isRead: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        try await change(.seen, isRead, emails)
    }

    public func setPinned(_ isPinned: Bool, for emails: [Email.ID]) async throws(MailServiceError) -> FlagChangeResult {
        let description = try await openDescription()
        return try await change(description.pinFlag, isPinned, emails)
    }

    /// `UID STORE +FLAGS.SILENT` or `-FLAGS.SILENT` of `flag`, with `UNCHANGEDSINCE` the MODSEQ
    /// each message had when it was last seen (CONDSTORE), so a message another client changed
    /// meanwhile is refused and reported rather than overwritten blindly.
    ///
    /// Changes take turns: two made together (read, then pin, of one message) would both send
    /// the MODSEQ seen before either, and the server would refuse the second as changed by
    /// another client; one after the other, the second sends the MODSEQ the first produced.
    private func change(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID]
    ) async throws(MailServiceError)
        -> FlagChangeResult
    {
        try await flagChanges.run { () throws(MailServiceError) -> FlagChangeResult in
            try await self.changeNow(flag, present, ids)
        }
    }

    private func changeNow(
        _ flag: Flag, _ present: Bool, _ ids: [Email.ID]
    ) async throws(MailServiceError)
        -> FlagChangeResult
    {
        let description = try await openDescription()
        var result = FlagChangeResult()
        var here: [Email.ID] = []
        for id in ids {
            if id.mailbox != description.name {
                result.refused[id] = "\(id.mailbox) is open read-only for searching; open it to change its messages"
            } else if id.uidValidity != description.uidValidity {
                result.refused[id] = "\(id.mailbox) was re-created on the server; reload it and try again"
            } else if description.isReadOnly {
                result.refused[id] = "\(id.mailbox) is read-only on this server, so its flags cannot be changed"
            } else {
                here.append(id)
            }
        }
        guard !here.isEmpty else { return result }
        let condstore = capabilities.contains(.condstore) || enabled.contains(.condstore) || enabled.contains(.qresync)
        // One STORE per MODSEQ the messages were seen with (one, for the usual single message).
        var groups: [UInt64?: [UInt32]] = [:]
        for id in here { groups[condstore ? modificationSequences[id.uid] : nil, default: []].append(id.uid) }
        for (modseq, uids) in groups.sorted(by: { ($0.key ?? 0) < ($1.key ?? 0) }) {
            let set = SequenceSet(numbers: uids)
            let stored: StoreResult
            do {
                stored = try await connection.store(set, present ? .add : .remove, [flag], unchangedSince: modseq)
            } catch  where error.code == .no || error.code == .bad {
                let reason =
                    "the server refused to \(present ? "set" : "clear") \(flag): \(error.serverText ?? error.message)"
                for uid in uids { result.refused[id(uid, description)] = reason }
                continue
            } catch {
                throw MailServiceError(error)
            }
            for (uid, modseq) in stored.modificationSequences { modificationSequences[uid] = modseq }
            let refused = Set(stored.refused?.numbers ?? [])
            for uid in uids where !refused.contains(uid) {
                if let flags = stored.flags[uid] { result.flags[id(uid, description)] = flags.filter { $0 != .recent } }
            }
            if !refused.isEmpty {
                // Someone else changed these since they were shown: report their flags as they are now.
                let current = try await currentFlags(SequenceSet(numbers: Array(refused)))
                for uid in refused {
                    let emailID = id(uid, description)
                    result.refused[emailID] =
                        "the message was changed by another client meanwhile; its flags are shown as they are now"
                    if let flags = current[uid] { result.flags[emailID] = flags }
                }
            }
        }
        return result
    }

    private func currentFlags(_ uids: SequenceSet) async throws(MailServiceError) -> [UInt32: [Flag]] {
        let messages: [FetchResponse]
        do {
            messages = try await connection.fetch(
                uids, items: [.uid, .flags] + (condstoreEnabled ? [.modificationSequence] : []))
        } catch {
            throw MailServiceError(error)
        }
        var flags: [UInt32: [Flag]] = [:]
        for message in messages {
            guard let uid = message.uid else { continue }
            flags[uid] = message.flags?.filter { $0 != .recent }
            if let modseq = message.modificationSequence { modificationSequences[uid] = modseq }
        }
        return flags
    }

    private var condstoreEnabled: Bool {
        capabilities.contains(.condstore) || enabled.contains(.condstore) || enabled.contains(.qresync)
    }

    private func id(_ uid: UInt32, _ description: MailboxDescription) -> Email.ID {
        Email.ID(mailbox: description.name, uidValidity: description.uidValidity, uid: uid)
    }

    // MARK: - Events

    public nonisolated func events() -> AsyncStream<MailServiceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MailServiceEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        let id = nextWatcher.add(1, ordering: .relaxed).newValue
        watchers.withLock { $0[id] = continuation }
        // Listening (IDLE) costs round trips; it starts only once someone listens.
        Task { [weak self] in await self?.startPumpIfWatched() }
        continuation.onTermination = { [weak self] _ in
            _ = self?.watchers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    public func close() async {
        // Everything is reset before the first await: a call that ends while the connections
        // log out finds the new, unopened state (it used to start listening on the closing
        // connection, and the service then never listened again).
        pump?.cancel()
        pump = nil
        let closing = (connection, others, lane)
        lane = nil
        // A later call opens the mailbox again on a new connection.
        connection = MailboxConnection(
            configuration: configuration, credentials: credentials, mailbox: MailboxName(wire: mailboxName),
            policy: reconnectPolicy)
        others = OtherMailboxes(configuration: configuration, credentials: credentials)
        described = nil
        selected = nil
        listed = false
        modificationSequences = ModificationSequenceCache()
        for watcher in watchers.withLock({ state in
            defer { state = [:] }
            return state.values
        }) {
            watcher.finish()
        }
        let writing = caching
        await closing.0.close()
        await closing.1.close()
        await closing.2?.close()
        await writing?.value
    }

    /// `30 s`, `0.5 s`.
    static func spoken(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        let tenths = (Double(seconds) + Double(attoseconds) / 1e18) * 10
        return "\(Double(tenths.rounded()) / 10) s"
    }

    private func broadcast(_ event: MailServiceEvent) {
        for watcher in watchers.withLock({ $0.values }) { watcher.yield(event) }
    }

    /// Starts listening for changes when someone watches and the mailbox has been listed or
    /// searched (whose answer gives the session its sequence-to-UID map, so listening needs no
    /// UID SEARCH ALL of its own). A one-shot caller that never asks for events pays no IDLE.
    private func startPumpIfWatched() async {
        guard listed, described != nil, !watchers.withLock({ $0.isEmpty }) else { return }
        await startPump()
    }

    private func startPump() async {
        guard pump == nil else { return }
        let source = connection
        let changes = await source.changes()
        // Another call may have started listening meanwhile, or close() replaced the connection.
        guard pump == nil, source === connection else { return }
        pump = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.handle(change)
            }
        }
    }

    private func handle(_ change: MailboxConnection.Change) async {
        guard let description = described else { return }
        switch change {
        case .mailbox(let event):
            switch event {
            case .messageCount: return
            case .arrived(let uids):
                // What a reconnect catches up on starts past what was announced here.
                if let highest = uids.numbers?.max(), let next = selected?.uidNext, highest >= next {
                    selected?.uidNext = highest + 1
                }
                let summaries: [MessageSummary]
                do {
                    summaries = try await connection.summaries(uids)
                } catch {
                    broadcast(.reloadNeeded(reason: "new mail arrived but could not be fetched (\(error.message))"))
                    return
                }
                let emails = summaries.map {
                    Self.email($0, mailbox: description.name, uidValidity: description.uidValidity, description.pinFlag)
                }
                for summary in summaries {
                    if let modseq = summary.modificationSequence { modificationSequences[summary.uid] = modseq }
                }
                if !emails.isEmpty { broadcast(.arrived(emails.sorted { $0.uid > $1.uid })) }
            case .expunged(let uids):
                let numbers = uids.numbers ?? []
                for uid in numbers { modificationSequences[uid] = nil }
                if !numbers.isEmpty { broadcast(.expunged(numbers.map { id($0, description) })) }
            case .flagsChanged(let uid, let flags, let modseq):
                if let modseq { modificationSequences[uid] = modseq }
                broadcast(.flagsChanged(id(uid, description), flags.filter { $0 != .recent }))
            case .uidValidityChanged:
                described = nil
                broadcast(.reloadNeeded(reason: "\(description.name) was re-created on the server"))
            case .resyncNeeded:
                broadcast(.reloadNeeded(reason: "too many changes arrived at once to follow them one by one"))
            case .alert(let text):
                broadcast(.alert(text))
            }
        case .reconnecting(let attempt, let reason):
            // Two lines at most for one outage: the loss, then (if it lasts until the waits reach
            // their longest) that the service is offline and how often it tries; a watcher shows
            // the latest until the connection is back.
            if attempt == 1 {
                broadcast(.connectionLost("Connection lost (\(reason.message)); reconnecting"))
            } else if reconnectPolicy.retriesForever, attempt == max(2, reconnectPolicy.firstAttemptAtMaximumDelay) {
                broadcast(.connectionLost("Offline: retrying every \(Self.spoken(reconnectPolicy.maximumDelay))"))
            }
        case .reconnected(let report):
            let previous = selected
            let fresh = describe(report.mailbox)
            broadcast(.connectionRestored)
            if report.needsReload || report.uidValidityChanged {
                broadcast(
                    .reloadNeeded(
                        reason: report.uidValidityChanged
                            ? "\(fresh.name) was re-created on the server" : "the connection was restored"))
                return
            }
            if let expunged = report.expunged?.numbers, !expunged.isEmpty {
                broadcast(.expunged(expunged.map { id($0, fresh) }))
            }
            for (uid, flags) in report.flags.sorted(by: { $0.key < $1.key }) {
                broadcast(.flagsChanged(id(uid, fresh), flags.filter { $0 != .recent }))
            }
            // Mail that arrived while the connection was away.
            if let before = previous?.uidNext, let after = report.mailbox.uidNext, after > before {
                do {
                    let summaries = try await connection.summaries(SequenceSet(before...(after - 1)))
                    let emails = summaries.map {
                        Self.email($0, mailbox: fresh.name, uidValidity: fresh.uidValidity, fresh.pinFlag)
                    }
                    if !emails.isEmpty { broadcast(.arrived(emails.sorted { $0.uid > $1.uid })) }
                } catch {
                    broadcast(.reloadNeeded(reason: "mail arrived while the connection was away (\(error.message))"))
                }
            }
        case .failed(let error):
            broadcast(.failed(MailServiceError(error)))
        }
    }
}

/// The MODSEQ of the messages seen most recently, in two generations of at most ``limit``
/// each: what a flag change needs (a message one can act on was fetched lately: it is on
/// screen), without a map of every message ever fetched, which scrolling 100,000 messages
/// would make. A message forgotten is stored without UNCHANGEDSINCE.
struct ModificationSequenceCache: Sendable {
    /// How many a generation holds before it becomes the older one.
    static let limit = 4096
    private var current: [UInt32: UInt64] = [:]
    private var previous: [UInt32: UInt64] = [:]

    /// The MODSEQ last seen for `uid`, if remembered.
    subscript(uid: UInt32) -> UInt64? {
        get { current[uid] ?? previous[uid] }
        set {
            guard let newValue else {
                current[uid] = nil
                previous[uid] = nil
                return
            }
            current[uid] = newValue
            if current.count >= Self.limit {
                previous = current
                current = [:]
            }
        }
    }
}

/// Puts cached messages (made with the flags the server has now) and fetched ones into the
/// list's order, handing over each run as soon as every message before it is known. A message
/// gone meanwhile (not among the cached emails; not sent for a fetched one) is left out.
private final class CachedMerge: Sendable {
    private let uids: [UInt32]
    private let position: [UInt32: Int]
    private let cached: [UInt32: Email]
    /// The index in `uids` of the first message not handed over yet.
    private let next = Mutex(0)

    init(uids: [UInt32], cached: [UInt32: Email]) {
        self.uids = uids
        self.cached = cached
        var position: [UInt32: Int] = [:]
        position.reserveCapacity(uids.count)
        for (index, uid) in uids.enumerated() { position[uid] = index }
        self.position = position
    }

    /// Takes `emails` fetched in the list's order; returns the run of the list through the last
    /// of them: the cached messages before each, and the emails themselves.
    func take(fetched emails: [Email]) -> [Email] {
        next.withLock { next in
            // Nothing cached, and the emails follow on in the list's order (as a fetch hands
            // them over): they are the run as they are, not copied one by one into another.
            if cached.isEmpty, let end = followOn(emails, from: next) {
                next = end
                return emails
            }
            var ready: [Email] = []
            ready.reserveCapacity(emails.count)
            for email in emails {
                guard let index = position[email.id.uid], index >= next else { continue }
                ready += uids[next..<index].compactMap { cached[$0] }
                ready.append(email)
                next = index + 1
            }
            return ready
        }
    }

    /// The index after the last of `emails` when each comes later in the list than the one
    /// before, the first at or after `start`; nil otherwise.
    private func followOn(_ emails: [Email], from start: Int) -> Int? {
        emails.withUnsafeBufferPointer { emails in
            var expected = start
            for email in emails {
                guard let index = position[email.id.uid], index >= expected else { return nil }
                expected = index + 1
            }
            return expected
        }
    }

    /// The cached messages after the last one handed over.
    func rest() -> [Email] {
        next.withLock { next in
            defer { next = uids.count }
            return uids[next...].compactMap { cached[$0] }
        }
    }
}
