public import IMAPCore
public import MailMIME
import Synchronization

/// What a mail list shows of a message: the values the server sent, and ``decoded``, the same
/// decoded the way MailMIME decodes a message (``MailSummary``).
public struct MessageSummary: Hashable, Sendable {
    /// The message's UID.
    public var uid: UInt32
    /// FLAGS.
    public var flags: [Flag]
    /// ENVELOPE, as sent (RFC 2047 encoded words still encoded).
    public var envelope: Envelope?
    /// INTERNALDATE.
    public var internalDate: IMAPDateTime?
    /// RFC822.SIZE.
    public var size: UInt64?
    /// BODYSTRUCTURE.
    public var bodyStructure: BodyStructure?
    /// The start of the text (PREVIEW, or made from the first text part with ``PreviewText``).
    public var preview: String?
    /// MODSEQ (RFC 7162), when CONDSTORE is enabled.
    public var modificationSequence: UInt64?
    /// Subject, people, date, preview, attachment, size and flags decoded: set by
    /// ``IMAPSession/fetchSummaries(_:previews:)`` from the fields above (``decode()``).
    public var decoded = MailSummary(subject: "")

    /// A summary with only a UID and flags.
    public init(uid: UInt32, flags: [Flag] = []) {
        self.uid = uid
        self.flags = flags
    }

    /// Whether the message carries an attachment, by MailMIME's ``AttachmentRule`` applied to
    /// its structure.
    public var hasAttachment: Bool { bodyStructure.map(Self.hasAttachment) ?? false }

    /// Sets ``decoded`` from the envelope, BODYSTRUCTURE, preview, size and flags.
    ///
    /// The envelope's fields are decoded where they lie in the parsed response, by the same
    /// MailMIME decoders ``MailSummary/init(envelope:preview:hasAttachment:size:flags:)`` uses
    /// (no copy of them into a ``MailEnvelope`` first).
    public mutating func decode() {
        func people(_ addresses: [Address]?) -> [MailSummary.Person] {
            guard let addresses, !addresses.isEmpty else { return [] }
            var people: [MailSummary.Person] = []
            people.reserveCapacity(addresses.count)
            for address in addresses {
                if let person = MailSummary.Person(
                    name: address.name?.bytes, mailbox: address.mailbox?.bytes, host: address.host?.bytes)
                {
                    people.append(person)
                }
            }
            return people
        }
        decoded = MailSummary(
            subject: envelope?.subject.map { MailSummary.decodedText($0.bytes) } ?? "", from: people(envelope?.from),
            to: people(envelope?.to), cc: people(envelope?.cc),
            date: envelope?.date.flatMap { MailSummary.decodedDate($0.bytes) }, preview: preview ?? "",
            hasAttachment: hasAttachment, size: size.map { Int(clamping: $0) } ?? 0, flags: flags.map(\.rawValue))
    }

    /// Whether a part of `structure` is an attachment (``AttachmentRule``), looking into
    /// encapsulated messages.
    static func hasAttachment(_ structure: BodyStructure) -> Bool {
        switch structure {
        case .invalid: return false
        case .multipart(let multipart): return multipart.parts.contains(where: hasAttachment)
        case .singlepart(let part):
            let disposition = part.extension?.disposition
            // RFC 2231 sections arrive joined as `filename*` or one by one as `filename*0`. The
            // key is compared byte by byte, ASCII case folded (no String is made of each key).
            func named(_ name: StaticString, in parameters: [BodyParameter]) -> String? {
                parameters.first { parameter in
                    let key = parameter.name.bytes
                    let length = name.utf8CodeUnitCount
                    guard key.count >= length else { return false }
                    let matches = name.withUTF8Buffer { wanted in
                        zip(key.prefix(length), wanted).allSatisfy { byte, expected in
                            (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected
                        }
                    }
                    return matches && (key.count == length || key[key.startIndex + length] == UInt8(ascii: "*"))
                }?.value.string
            }
            let fileName =
                disposition.flatMap { named("filename", in: $0.parameters) } ?? named("name", in: part.parameters)
            if AttachmentRule.isAttachment(
                mediaType: part.mediaType.string, disposition: disposition?.kind.string, fileName: fileName)
            {
                return true
            }
            if case .message(_, let body, _) = part.kind { return hasAttachment(body) }
            return false
        }
    }
}

extension MessageSummary {
    /// How many bytes of each message's body a summary fetch asks for to make previews on a
    /// server without PREVIEW: `BODY.PEEK[TEXT]<0.16384>`, in the same FETCH as the envelope.
    ///
    /// A preview is 200 characters, but the body holds more before them: part headers and a
    /// preamble (a few hundred bytes in `multipart/mixed` around `multipart/alternative`), base64
    /// (4 bytes for 3), quoted-printable (up to 9 bytes per CJK character), the `<head>` and CSS
    /// of HTML-only mail (commonly 5-15 KB in newsletters), quoted lines above a bottom-posted
    /// reply. 16 KB holds all of that for typical mail, and costs at most 16 KB a message (a page
    /// of 50 at most 800 KB; short messages send less, since a server sends only what there is).
    /// A message whose preview needs more (text after a large attachment, a longer quote or
    /// head) gets its text part fetched whole in one more FETCH, of those messages only.
    public static let previewBodyBytes: UInt64 = 16_384

    /// The top-level fields that say how the body is laid out, fetched with the start of the
    /// body (`BODY.PEEK[HEADER.FIELDS (...)]`) so that it is read exactly as the whole message
    /// would be: RFC 2045 counts Content-* fields only where MIME-Version or Content-Type is.
    static let layoutFields: [ByteString] = ["CONTENT-TYPE", "CONTENT-TRANSFER-ENCODING", "MIME-VERSION"]
}

extension IMAPSession {
    /// Summaries (flags, envelope, dates, size, structure and a preview) for `uids`, streamed.
    ///
    /// One FETCH per 500 messages on every server. The preview is the server's PREVIEW (RFC 8970)
    /// when it offers one; otherwise the same FETCH asks for the body's layout fields and its
    /// first ``MessageSummary/previewBodyBytes`` bytes with BODY.PEEK (never marking mail read),
    /// and MailMIME makes the preview of them (``PreviewText/make(header:bodyStart:isWholeBody:)``:
    /// boundaries, transfer encoding, charset, HTML), the same as the server's PREVIEW. Only a
    /// message whose preview lies past those bytes costs one more FETCH, of its text part.
    ///
    /// ```
    /// C: A5 UID FETCH 7,9 (UID FLAGS ENVELOPE INTERNALDATE RFC822.SIZE BODYSTRUCTURE
    ///        BODY.PEEK[HEADER.FIELDS (CONTENT-TYPE CONTENT-TRANSFER-ENCODING MIME-VERSION)]
    ///        BODY.PEEK[TEXT]<0.16384>)
    /// ```
    public nonisolated func fetchSummaries(
        _ uids: SequenceSet, previews: Bool = true, in mailbox: MailboxExpectation? = nil
    ) -> MessageStream<MessageSummary> {
        let stream = MessageStream<MessageSummary>()
        Task { await self.runSummaries(uids, previews: previews, mailbox: mailbox, into: stream) }
        return stream
    }

    /// The FETCH items of a summary, and whether the server makes the previews.
    private func summaryItems(previews: Bool) -> (items: [FetchAttribute], serverPreview: Bool) {
        let serverPreview = previews && capabilities.contains(.preview)
        let bodyPreview = previews && !serverPreview
        let layout = SectionSpecifier(kind: .headerFields(MessageSummary.layoutFields))
        var items: [FetchAttribute] = [
            .uid, .flags, .envelope, .internalDate, .rfc822Size, .bodyStructure(extensions: true),
        ]
        if serverPreview { items.append(.preview(lazy: false)) }
        if bodyPreview {
            items.append(.bodySection(peek: true, section: layout, partial: nil))
            items.append(
                .bodySection(
                    peek: true, section: .text,
                    partial: FetchAttribute.Partial(offset: 0, length: MessageSummary.previewBodyBytes)))
        }
        if enabled.contains(.condstore) { items.append(.modificationSequence) }
        return (items, serverPreview)
    }

    /// The summary of one FETCH response (not yet decoded); nil without a UID.
    static func summary(of message: FetchResponse, serverPreview: Bool) -> MessageSummary? {
        guard let uid = message.uid else { return nil }
        var summary = MessageSummary(uid: uid, flags: message.flags ?? [])
        summary.envelope = message.envelope
        summary.internalDate = message.internalDate
        summary.size = message.size
        summary.bodyStructure = message.bodyStructure
        summary.modificationSequence = message.modificationSequence
        // The server's PREVIEW is already made (RFC 8970); making it again could cut more.
        if serverPreview { summary.preview = message.preview?.string }
        return summary
    }

    private func runSummaries(
        _ uids: SequenceSet, previews: Bool, mailbox: MailboxExpectation?, into stream: MessageStream<MessageSummary>
    ) async {
        let (items, serverPreview) = summaryItems(previews: previews)
        let bodyPreview = previews && !serverPreview
        do {
            // Work in chunks, one command at a time: a preview fetch of a chunk must not overlap
            // the summary fetch (their responses could not be told apart).
            let numbers: [UInt32]
            if let explicit = uids.numbers {
                numbers = explicit
            } else {
                numbers = try await existingUIDs(in: uids, mailbox: mailbox)
            }
            stream.setTotal(numbers.count)
            var start = 0
            while start < numbers.count {
                guard await stream.waitForDemand(bufferedAtMost: 500) else { return }
                let chunk = SequenceSet(numbers: numbers[start..<min(numbers.count, start + 500)])
                start += 500
                var batch: [MessageSummary] = []
                var unfinished: [UInt32: TextPartLocation] = [:]
                for try await message in fetch(chunk, items: items, in: mailbox) {
                    guard var summary = Self.summary(of: message, serverPreview: serverPreview) else { continue }
                    if bodyPreview {
                        summary.preview = Self.preview(of: message)
                        if summary.preview == nil, let structure = message.bodyStructure {
                            // Past the bytes sent, or no text part at all.
                            if let location = TextPartLocation.first(in: structure) {
                                unfinished[summary.uid] = location
                            } else {
                                summary.preview = ""
                            }
                        }
                    }
                    batch.append(summary)
                }
                if !unfinished.isEmpty { try await fillPreviews(&batch, of: unfinished, mailbox: mailbox) }
                guard !stream.isConsumerGone else { return }
                for index in batch.indices { batch[index].decode() }
                for summary in batch { stream.yield(summary) }
                stream.flush()
            }
            stream.finish()
        } catch {
            stream.finish(throwing: error)
        }
    }

    /// Summaries for `uids` in exactly that order (a list's order, newest first), streamed and
    /// decoded; UIDs that no longer exist are left out.
    ///
    /// When the server makes the previews (PREVIEW) or none are wanted, the UIDs go out in
    /// windows of `fetchWindow` in that order, two windows in flight, so the server streams
    /// without waiting for the client; each window is put back in order when it is in, and
    /// decoding runs off the session's actor, beside the parsing of the next window. The next
    /// window is sent only once the consumer has drained the stream to one window, so at most
    /// four windows are held. Without PREVIEW the previews come from the start of each body in
    /// the same FETCH, and one past those bytes needs one more FETCH of its text part (see
    /// ``fetchSummaries(_:previews:)``): those go chunk by chunk, in order.
    ///
    /// ```
    /// C: M7 UID FETCH 19001:20000 (UID FLAGS ENVELOPE ... PREVIEW)
    /// C: M8 UID FETCH 18001:19000 (UID FLAGS ENVELOPE ... PREVIEW)
    /// S: * 19001 FETCH (...) ... M7 OK
    /// C: M9 UID FETCH 17001:18000 (...)
    /// ```
    public nonisolated func fetchSummaries(
        inOrder uids: [UInt32], previews: Bool = true, in mailbox: MailboxExpectation? = nil
    )
        -> MessageStream<MessageSummary>
    {
        let stream = MessageStream<MessageSummary>()
        Task { await self.runOrderedSummaries(uids, previews: previews, mailbox: mailbox, into: stream) }
        return stream
    }

    private nonisolated func runOrderedSummaries(
        _ uids: [UInt32], previews: Bool, mailbox: MailboxExpectation?, into stream: MessageStream<MessageSummary>
    ) async {
        let (items, serverPreview, window, group) = await orderedFetchPlan(previews: previews)
        stream.setTotal(uids.count)
        do throws(IMAPError) {
            guard serverPreview || !previews else {
                try await orderedChunks(uids, mailbox: mailbox, into: stream)
                return
            }
            let kinds = Set(items.compactMap(AttributeKind.init))
            let windows = stride(from: 0, to: uids.count, by: window).map {
                Array(uids[$0..<min(uids.count, $0 + window)])
            }
            var inFlight: [WindowSlots] = []
            // Windows still in flight when this stops (the consumer left, or a failure) send no
            // more commands and keep nothing.
            defer { for window in inFlight { window.consumerLeft() } }
            var launched = 0
            func launch() {
                let uids = windows[launched]
                launched += 1
                let slots = WindowSlots(uids: uids, serverPreview: serverPreview)
                inFlight.append(slots)
                Task {
                    await self.fetchWindow(
                        uids, items: items, kinds: kinds, group: group, mailbox: mailbox, into: slots)
                }
            }
            while launched < min(2, windows.count) { launch() }
            for _ in windows {
                var slots = try await inFlight[0].summaries()
                inFlight.removeFirst()
                if launched < windows.count {
                    guard await stream.waitForDemand(bufferedAtMost: window) else { return }
                    launch()
                }
                guard !stream.isConsumerGone else { return }
                for index in slots.indices {
                    guard let summary = slots[index].take() else { continue }
                    stream.yield(summary)
                }
                stream.flush()
            }
            stream.finish()
        } catch {
            stream.finish(throwing: error)
        }
    }

    /// What an ordered fetch needs from the session: items, window size and a stream group of
    /// its own (so its windows may be in flight together).
    private func orderedFetchPlan(
        previews: Bool
    ) -> (items: [FetchAttribute], serverPreview: Bool, window: Int, group: UInt64) {
        let (items, serverPreview) = summaryItems(previews: previews)
        nextStreamGroup += 1
        return (items, serverPreview, max(configuration.fetchWindow, 1), nextStreamGroup)
    }

    /// One window of an ordered fetch: its UID FETCH (split when the line would be too long),
    /// streamed into `sink`, which ends with the command.
    private func fetchWindow(
        _ uids: [UInt32], items: [FetchAttribute], kinds: Set<AttributeKind>, group: UInt64,
        mailbox: MailboxExpectation?, into sink: any FetchSink
    ) async {
        let commands = Command.uidFetch(SequenceSet(numbers: uids), items, modifiers: []).split(
            maximumLineLength: configuration.maximumCommandLength)
        do {
            for command in commands {
                guard !sink.isConsumerGone else { break }
                guard case .uidFetch(let part, _, _) = command else { continue }
                try await run(
                    command, claim: .fetch(part, kinds: kinds), expecting: mailbox, sink: sink, streamGroup: group)
            }
            sink.finish(throwing: nil)
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// Ordered summaries whose previews are made from text parts: chunk by chunk, each put
    /// back in order.
    private nonisolated func orderedChunks(
        _ uids: [UInt32], mailbox: MailboxExpectation?, into stream: MessageStream<MessageSummary>
    ) async throws(IMAPError) {
        var start = 0
        while start < uids.count {
            guard await stream.waitForDemand(bufferedAtMost: 500) else { return }
            let chunk = uids[start..<min(uids.count, start + 500)]
            start += 500
            var arrived: [UInt32: MessageSummary] = [:]
            for try await summary in fetchSummaries(SequenceSet(numbers: chunk), previews: true, in: mailbox) {
                arrived[summary.uid] = summary
            }
            guard !stream.isConsumerGone else { return }
            for uid in chunk {
                if let summary = arrived[uid] { stream.yield(summary) }
            }
            stream.flush()
        }
        stream.finish()
    }

    /// The preview MailMIME makes of the layout fields and the start of the body in `message`;
    /// nil when they may not hold all of it.
    private static func preview(of message: FetchResponse) -> String? {
        var header: [UInt8]?
        var body: [UInt8]?
        for case .bodySection(let section, _, let data) in message.attributes where section.part.isEmpty {
            switch section.kind {
            // Matched by kind: a server may echo the field names in its own case.
            case .headerFields: header = data.map { Array($0.bytes) } ?? []
            case .text: body = data.map { Array($0.bytes) } ?? []
            case .complete, .header, .headerFieldsNot, .mime: continue
            }
        }
        guard let header, let body else { return nil }
        // A server sends the whole body when it is shorter than asked for (RFC 3501 6.4.5).
        let isWhole = UInt64(body.count) < MessageSummary.previewBodyBytes
        return PreviewText.make(header: header, bodyStart: body, isWholeBody: isWhole)
    }

    /// Makes the previews the first bytes could not from the text parts at `locations`, fetched
    /// whole.
    private func fillPreviews(
        _ batch: inout [MessageSummary], of locations: [UInt32: TextPartLocation], mailbox: MailboxExpectation?
    ) async throws(IMAPError) {
        var groups: [[UInt32]: [UInt32]] = [:]
        for (uid, location) in locations { groups[location.path, default: []].append(uid) }
        var previews: [UInt32: String] = [:]
        for (path, uids) in groups.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            let item = FetchAttribute.bodySection(peek: true, section: SectionSpecifier(part: path), partial: nil)
            for try await message in fetch(SequenceSet(numbers: uids.sorted()), items: [.uid, item], in: mailbox) {
                guard let uid = message.uid, let location = locations[uid] else { continue }
                for case .bodySection(let returned, _, let data) in message.attributes where returned.part == path {
                    previews[uid] = location.preview(of: data.map { Array($0.bytes) } ?? [])
                }
            }
        }
        for index in batch.indices {
            if let preview = previews[batch[index].uid] { batch[index].preview = preview }
        }
    }
}

/// One window of an ordered fetch: each FETCH response is decoded where the session parses it,
/// on its actor (the response is freed there and then), and the summary goes straight to its
/// place in the window's order, which can only be kept once all of the window is here. The
/// consumer takes the whole window when its command has ended: no value passes through a stream
/// on the way, and the consumer wakes once per window.
final class WindowSlots: FetchSink {
    private struct State {
        var slots: [MessageSummary?]
        var finished = false
        var failure: IMAPError?
        var consumerGone = false
        var waiter: CheckedContinuation<[MessageSummary?], any Error>?
    }

    private let position: [UInt32: Int]
    private let serverPreview: Bool
    private let state: Mutex<State>

    init(uids: [UInt32], serverPreview: Bool) {
        var position: [UInt32: Int] = [:]
        position.reserveCapacity(uids.count)
        for (index, uid) in uids.enumerated() { position[uid] = index }
        self.position = position
        self.serverPreview = serverPreview
        state = Mutex(State(slots: [MessageSummary?](repeating: nil, count: uids.count)))
    }

    func yield(_ fetch: consuming FetchResponse) {
        guard let uid = fetch.uid, let index = position[uid] else { return }
        // Decoded in place, and moved into its slot.
        var placed = IMAPSession.summary(of: fetch, serverPreview: serverPreview)
        placed?.decode()
        if case .none = placed { return }
        state.withLock { state in
            guard !state.consumerGone, !state.finished else { return }
            state.slots[index] = placed.take()
        }
    }

    func flush() {}

    func finish(throwing failure: IMAPError?) {
        let (waiter, outcome) = state.withLock {
            state -> (CheckedContinuation<[MessageSummary?], any Error>?, Result<[MessageSummary?], IMAPError>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            state.failure = failure
            guard let waiter = state.waiter else { return (nil, nil) }
            state.waiter = nil
            return (waiter, Self.outcome(&state))
        }
        if let waiter, let outcome { waiter.resume(with: outcome.mapError { $0 as any Error }) }
    }

    var isConsumerGone: Bool { state.withLock { $0.consumerGone } }

    /// The window's summaries in its order (nil where the server sent none), once its command
    /// has ended; its failure, if it failed. Cancelling the waiting task stops the window.
    func summaries() async throws(IMAPError) -> [MessageSummary?] {
        try await waitCancellably(onCancel: { self.consumerLeft() }) {
            (continuation: CheckedContinuation<[MessageSummary?], any Error>) in
            let ready = state.withLock { state -> Result<[MessageSummary?], IMAPError>? in
                if state.consumerGone { return .failure(IMAPError(.cancelled, "the consumer stopped reading")) }
                guard state.finished else {
                    state.waiter = continuation
                    return nil
                }
                return Self.outcome(&state)
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }

    /// The consumer stopped: the window's remaining commands are not sent, what arrives is
    /// dropped, and a waiting `summaries()` ends.
    func consumerLeft() {
        let waiter = state.withLock { state -> CheckedContinuation<[MessageSummary?], any Error>? in
            state.consumerGone = true
            state.slots = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: IMAPError(.cancelled, "the consumer stopped reading"))
    }

    /// The ended window's summaries (moved out) or its failure.
    private static func outcome(_ state: inout State) -> Result<[MessageSummary?], IMAPError> {
        if let failure = state.failure { return .failure(failure) }
        let slots = state.slots
        state.slots = []
        return .success(slots)
    }
}

/// Where the part a preview is made of lies, and how to decode it.
struct TextPartLocation: Hashable {
    var path: [UInt32]
    var encoding: String
    var charset: String?
    var isHTML: Bool

    /// The part MailMIME's ``PreviewText/sourcePart(of:)`` picks, found in a BODYSTRUCTURE: the
    /// first `text/*` leaf in depth-first order, not looking into encapsulated messages.
    static func first(in structure: BodyStructure) -> TextPartLocation? {
        func search(_ structure: BodyStructure, path: [UInt32]) -> TextPartLocation? {
            switch structure {
            case .invalid: return nil
            case .multipart(let multipart):
                for (offset, part) in multipart.parts.enumerated() {
                    if let found = search(part, path: path + [UInt32(offset + 1)]) { return found }
                }
                return nil
            case .singlepart(let part):
                guard part.mediaType.equalsCaseInsensitive("text"), case .text = part.kind else { return nil }
                return TextPartLocation(
                    path: path.isEmpty ? [1] : path, encoding: part.encoding.string,
                    charset: part.parameters.first { $0.name.equalsCaseInsensitive("charset") }?.value.string,
                    isHTML: part.mediaSubtype.equalsCaseInsensitive("html"))
            }
        }
        return search(structure, path: [])
    }

    /// The preview of the whole part, from its `bytes`.
    func preview(of bytes: [UInt8]) -> String {
        let body = MIMEPart.decodeTransferEncoding(bytes[...], encoding: encoding)
        return PreviewText.make(from: MIMEPart.text(ofDecodedBody: body, charset: charset), isHTML: isHTML)
    }
}
