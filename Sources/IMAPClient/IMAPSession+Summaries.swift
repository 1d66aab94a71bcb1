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
            let fileName = part.fileNameParameter
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
        produce(MessageStream<MessageSummary>()) { stream throws(IMAPError) in
            let numbers = try await self.resolved(uids, mailbox: mailbox)
            try await self.summaries(numbers, previews: previews, mailbox: mailbox, into: stream)
        }
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

    /// Summaries for `uids` in exactly that order (a list's order, newest first), streamed and
    /// decoded; UIDs that no longer exist are left out.
    ///
    /// When the server makes the previews (PREVIEW) or none are wanted, the UIDs go out in
    /// windows of `fetchWindow` in that order, two windows in flight, so the server streams
    /// without waiting for the client; each window is put back in order when it is in, and
    /// decoding runs off the session's actor, beside the parsing of the next window. The next
    /// window is sent only once the consumer has taken the window before. Without
    /// PREVIEW the previews come from the start of each body in the same FETCH, and one past
    /// those bytes needs one more FETCH of its text part (see ``fetchSummaries(_:previews:)``):
    /// then the UIDs go in windows of 500, one at a time.
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
        produce(MessageStream<MessageSummary>()) { stream throws(IMAPError) in
            try await self.summaries(uids, previews: previews, mailbox: mailbox, into: stream)
        }
    }

    /// The summaries of `uids` in that order, through the fetch engine, decoded off the
    /// session's actor as each window is handed over.
    private nonisolated func summaries(
        _ uids: [UInt32], previews: Bool, mailbox: MailboxExpectation?, into stream: MessageStream<MessageSummary>
    ) async throws(IMAPError) {
        let (items, serverPreview) = await summaryItems(previews: previews)
        let bodyPreview = previews && !serverPreview
        // Previews made of text parts need one more FETCH of a window's messages: one window at
        // a time, of at most 500 (or `fetchWindow` when smaller), so such a fetch never waits
        // behind a large window.
        let plan =
            bodyPreview
            ? WindowPlan(window: max(min(configuration.fetchWindow, 500), 1), concurrentWindows: 1)
            : WindowPlan(window: max(configuration.fetchWindow, 1), concurrentWindows: 2)
        stream.setTotal(uids.count)
        try await windowedFetch(uids, items: items, mailbox: mailbox, plan: plan, into: stream) {
            responses throws(IMAPError) in
            var batch: [MessageSummary] = []
            batch.reserveCapacity(responses.count)
            var unfinished: [UInt32: TextPartLocation] = [:]
            for index in responses.indices {
                guard let message = responses[index].take(),
                    var summary = Self.summary(of: message, serverPreview: serverPreview)
                else { continue }
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
            if !unfinished.isEmpty { try await self.fillPreviews(&batch, of: unfinished, mailbox: mailbox) }
            for index in batch.indices {
                batch[index].decode()
                stream.yield(batch[index])
            }
        }
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

extension SinglePartBody {
    /// The raw value of the part's file name parameter: Content-Disposition `filename`, else
    /// Content-Type `name` (RFC 2231 sections arrive joined as `filename*` or one by one as
    /// `filename*0`; the first is taken, not decoded); nil when there is none. Enough to tell
    /// whether the part is named (``AttachmentRule``), not to show the name.
    package var fileNameParameter: String? {
        // The key is compared byte by byte, ASCII case folded (no String is made of each key).
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
        return self.extension?.disposition.flatMap { named("filename", in: $0.parameters) }
            ?? named("name", in: parameters)
    }
}
