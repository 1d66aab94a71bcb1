public import IMAPCore
public import MailMIME

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
    public mutating func decode() {
        decoded = MailSummary(
            envelope: envelope.map(Self.mailEnvelope) ?? MailEnvelope(), preview: preview ?? "",
            hasAttachment: hasAttachment, size: size.map { Int(clamping: $0) } ?? 0,
            flags: flags.map(\.rawValue))
    }

    /// The raw fields of an ENVELOPE, for MailMIME's decoders.
    static func mailEnvelope(_ envelope: Envelope) -> MailEnvelope {
        func bytes(_ string: ByteString?) -> [UInt8]? { string.map { Array($0.bytes) } }
        func addresses(_ list: [Address]) -> [MailEnvelope.Address] {
            list.map {
                MailEnvelope.Address(
                    name: bytes($0.name), route: bytes($0.adl), mailbox: bytes($0.mailbox), host: bytes($0.host))
            }
        }
        var result = MailEnvelope()
        result.date = bytes(envelope.date)
        result.subject = bytes(envelope.subject)
        result.from = addresses(envelope.from)
        result.sender = addresses(envelope.sender)
        result.replyTo = addresses(envelope.replyTo)
        result.to = addresses(envelope.to)
        result.cc = addresses(envelope.cc)
        result.bcc = addresses(envelope.bcc)
        result.inReplyTo = bytes(envelope.inReplyTo)
        result.messageID = bytes(envelope.messageID)
        return result
    }

    /// Whether a part of `structure` is an attachment (``AttachmentRule``), looking into
    /// encapsulated messages.
    static func hasAttachment(_ structure: BodyStructure) -> Bool {
        switch structure {
        case .invalid: return false
        case .multipart(let multipart): return multipart.parts.contains(where: hasAttachment)
        case .singlepart(let part):
            let disposition = part.extension?.disposition
            // RFC 2231 sections arrive joined as `filename*` or one by one as `filename*0`.
            func named(_ name: String, in parameters: [BodyParameter]) -> String? {
                parameters.first { parameter in
                    let key = parameter.name.string.lowercased()
                    return key == name || key.hasPrefix(name + "*")
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

extension IMAPSession {
    /// Summaries (flags, envelope, dates, size, structure and a preview) for `uids`, streamed.
    ///
    /// The preview is the server's PREVIEW (RFC 8970) when it offers one; otherwise the first 2 KB
    /// of the first text part are fetched with BODY.PEEK (never marking mail read), decoded
    /// (transfer encoding, charset, HTML) and shortened to 200 characters.
    public nonisolated func fetchSummaries(_ uids: SequenceSet, previews: Bool = true) -> MessageStream<MessageSummary>
    {
        let stream = MessageStream<MessageSummary>()
        Task { await self.runSummaries(uids, previews: previews, into: stream) }
        return stream
    }

    /// The FETCH items of a summary, and whether the server makes the previews.
    private func summaryItems(previews: Bool) -> (items: [FetchAttribute], serverPreview: Bool) {
        let serverPreview = previews && capabilities.contains(.preview)
        var items: [FetchAttribute] = [
            .uid, .flags, .envelope, .internalDate, .rfc822Size, .bodyStructure(extensions: true),
        ]
        if serverPreview { items.append(.preview(lazy: false)) }
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

    private func runSummaries(_ uids: SequenceSet, previews: Bool, into stream: MessageStream<MessageSummary>) async {
        let (items, serverPreview) = summaryItems(previews: previews)
        do {
            // Work in chunks, one command at a time: the preview fetch of a chunk must not overlap
            // the summary fetch (their responses could not be told apart).
            let numbers: [UInt32]
            if let explicit = uids.numbers {
                numbers = explicit
            } else {
                numbers = try await existingUIDs(in: uids, mailbox: nil)
            }
            stream.setTotal(numbers.count)
            var start = 0
            while start < numbers.count {
                guard await stream.waitForDemand(bufferedAtMost: 500) else { return }
                let chunk = SequenceSet(numbers: numbers[start..<min(numbers.count, start + 500)])
                start += 500
                var batch: [MessageSummary] = []
                for try await message in fetch(chunk, items: items) {
                    if let summary = Self.summary(of: message, serverPreview: serverPreview) { batch.append(summary) }
                }
                guard try await deliver(&batch, makePreviews: previews && !serverPreview, to: stream) else { return }
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
    /// four windows are held. Previews made from text parts need a second FETCH per chunk
    /// (see ``fetchSummaries(_:previews:)``): those go chunk by chunk.
    ///
    /// ```
    /// C: M7 UID FETCH 19001:20000 (UID FLAGS ENVELOPE ... PREVIEW)
    /// C: M8 UID FETCH 18001:19000 (UID FLAGS ENVELOPE ... PREVIEW)
    /// S: * 19001 FETCH (...) ... M7 OK
    /// C: M9 UID FETCH 17001:18000 (...)
    /// ```
    public nonisolated func fetchSummaries(
        inOrder uids: [UInt32], previews: Bool = true
    )
        -> MessageStream<MessageSummary>
    {
        let stream = MessageStream<MessageSummary>()
        Task { await self.runOrderedSummaries(uids, previews: previews, into: stream) }
        return stream
    }

    private nonisolated func runOrderedSummaries(
        _ uids: [UInt32], previews: Bool, into stream: MessageStream<MessageSummary>
    ) async {
        let (items, serverPreview, window, group) = await orderedFetchPlan(previews: previews)
        stream.setTotal(uids.count)
        do throws(IMAPError) {
            guard serverPreview || !previews else {
                try await orderedChunks(uids, into: stream)
                return
            }
            let kinds = Set(items.compactMap(AttributeKind.init))
            let windows = stride(from: 0, to: uids.count, by: window).map {
                Array(uids[$0..<min(uids.count, $0 + window)])
            }
            var inFlight: [MessageStream<FetchResponse>] = []
            var launched = 0
            func launch() {
                let sink = MessageStream<FetchResponse>()
                let uids = windows[launched]
                launched += 1
                inFlight.append(sink)
                Task { await self.fetchWindow(uids, items: items, kinds: kinds, group: group, into: sink) }
            }
            while launched < min(2, windows.count) { launch() }
            for uids in windows {
                let sink = inFlight.removeFirst()
                var arrived: [UInt32: FetchResponse] = [:]
                arrived.reserveCapacity(uids.count)
                for try await message in sink {
                    if let uid = message.uid { arrived[uid] = message }
                }
                if launched < windows.count {
                    guard await stream.waitForDemand(bufferedAtMost: window) else { return }
                    launch()
                }
                guard !stream.isConsumerGone else { return }
                for uid in uids {
                    // Moved out of the dictionary, not copied: each response is freed once decoded.
                    guard let message = arrived.removeValue(forKey: uid),
                        var summary = Self.summary(of: message, serverPreview: serverPreview)
                    else { continue }
                    summary.decode()
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
        into sink: MessageStream<FetchResponse>
    ) async {
        let commands = Command.uidFetch(SequenceSet(numbers: uids), items, modifiers: []).split(
            maximumLineLength: configuration.maximumCommandLength)
        do {
            for command in commands {
                guard !sink.isConsumerGone else { break }
                guard case .uidFetch(let part, _, _) = command else { continue }
                try await run(command, claim: .fetch(part, kinds: kinds), sink: sink, streamGroup: group)
            }
            sink.finish()
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// Ordered summaries whose previews are made from text parts: chunk by chunk, each put
    /// back in order.
    private nonisolated func orderedChunks(
        _ uids: [UInt32], into stream: MessageStream<MessageSummary>
    ) async throws(IMAPError) {
        var start = 0
        while start < uids.count {
            guard await stream.waitForDemand(bufferedAtMost: 500) else { return }
            let chunk = uids[start..<min(uids.count, start + 500)]
            start += 500
            var arrived: [UInt32: MessageSummary] = [:]
            for try await summary in fetchSummaries(SequenceSet(numbers: chunk), previews: true) {
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

    /// Fills in previews from text parts when needed, decodes, and hands the batch over; false
    /// when the consumer has gone.
    private func deliver(
        _ batch: inout [MessageSummary], makePreviews: Bool, to stream: MessageStream<MessageSummary>
    ) async throws(IMAPError) -> Bool {
        if makePreviews { try await fillPreviews(&batch) }
        guard !stream.isConsumerGone else { return false }
        for index in batch.indices { batch[index].decode() }
        for summary in batch { stream.yield(summary) }
        stream.flush()
        batch.removeAll(keepingCapacity: true)
        return true
    }

    /// Makes previews from the first text parts: the first 2 KB of each, and the whole part when
    /// those 2 KB did not give a full preview (or ended in a way the charset cannot read).
    private func fillPreviews(_ batch: inout [MessageSummary]) async throws(IMAPError) {
        var locations: [UInt32: TextPartLocation] = [:]
        for summary in batch {
            if let structure = summary.bodyStructure, let location = TextPartLocation.first(in: structure) {
                locations[summary.uid] = location
            }
        }
        var previews = try await previews(of: locations, firstBytes: 2048)
        let incomplete = locations.filter { uid, _ in previews[uid] == nil }
        if !incomplete.isEmpty {
            previews.merge(try await self.previews(of: incomplete, firstBytes: nil)) { _, whole in whole }
        }
        for index in batch.indices {
            if let preview = previews[batch[index].uid] { batch[index].preview = preview }
        }
    }

    /// The previews of the text parts at `locations`, from their first `firstBytes` bytes (all
    /// of them when nil); a message is left out when its bytes may not give its full preview.
    private func previews(
        of locations: [UInt32: TextPartLocation], firstBytes: UInt64?
    ) async throws(IMAPError) -> [UInt32: String] {
        var groups: [[UInt32]: [UInt32]] = [:]
        for (uid, location) in locations { groups[location.path, default: []].append(uid) }
        var previews: [UInt32: String] = [:]
        for (path, uids) in groups {
            let section = SectionSpecifier(part: path)
            let item = FetchAttribute.bodySection(
                peek: true, section: section,
                partial: firstBytes.map { FetchAttribute.Partial(offset: 0, length: $0) })
            for try await message in fetch(SequenceSet(numbers: uids.sorted()), items: [.uid, item]) {
                guard let uid = message.uid, let location = locations[uid] else { continue }
                for case .bodySection(let returned, _, let data) in message.attributes where returned.part == path {
                    let bytes = data.map { Array($0.bytes) } ?? []
                    let isWhole = firstBytes.map { UInt64(bytes.count) < $0 } ?? true
                    if let preview = location.preview(of: bytes, isWhole: isWhole) { previews[uid] = preview }
                }
            }
        }
        return previews
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

    /// The preview of the part from its `bytes` (all of them when `isWhole`, else the first
    /// ones); nil when the first bytes may not give the same preview as the whole part.
    func preview(of bytes: [UInt8], isWhole: Bool) -> String? {
        if isWhole {
            let body = MIMEPart.decodeTransferEncoding(bytes[...], encoding: encoding)
            return PreviewText.make(from: MIMEPart.text(ofDecodedBody: body, charset: charset), isHTML: isHTML)
        }
        var encoded = bytes[...]
        switch encoding.lowercased() {
        case "base64":
            // A cut-off base64 group would decode to garbage.
            let alphabet = bytes.filter { $0 > 0x20 }
            encoded = alphabet.prefix(alphabet.count - alphabet.count % 4)
        case "quoted-printable":
            // So would a cut-off `=XX`: keep whole lines.
            encoded = bytes[..<(bytes.lastIndex(of: 0x0A) ?? 0)]
        default:
            break
        }
        let body = MIMEPart.decodeTransferEncoding(encoded, encoding: encoding)
        let lowercasedCharset = charset?.lowercased() ?? ""
        guard !["utf-16", "utf-32", "utf-7", "ucs-"].contains(where: lowercasedCharset.hasPrefix) else { return nil }
        let text: String
        if body.allSatisfy({ $0 < 0x80 }) {
            text = String(decoding: body, as: UTF8.self)
        } else if let charset, lowercasedCharset == "utf-8" || lowercasedCharset == "utf8" {
            // The cut may split a character: read the bytes without it. Other charsets may not
            // say when a character is cut short, so their parts are read whole.
            guard let decoded = (0...3).lazy.compactMap({ Charset.decode(body.dropLast($0), charset: charset) }).first
            else { return nil }
            text = decoded
        } else {
            return nil
        }
        let preview = PreviewText.make(from: text, isHTML: isHTML)
        return preview.unicodeScalars.count >= PreviewText.maximumLength ? preview : nil
    }
}
