public import IMAPCore
import MailMIME

/// What a mail list shows of a message.
public struct MessageSummary: Hashable, Sendable {
    public var uid: UInt32
    public var flags: [Flag]
    public var envelope: Envelope?
    public var internalDate: IMAPDateTime?
    public var size: UInt64?
    public var bodyStructure: BodyStructure?
    /// The start of the text, white space collapsed (PREVIEW, or made from the first text part).
    public var preview: String?
    public var modificationSequence: UInt64?

    public init(uid: UInt32, flags: [Flag] = []) {
        self.uid = uid
        self.flags = flags
    }

    /// Whether the message carries an attachment, judged from its structure.
    public var hasAttachment: Bool { bodyStructure?.hasAttachment ?? false }
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

    private func runSummaries(_ uids: SequenceSet, previews: Bool, into stream: MessageStream<MessageSummary>) async {
        let serverPreview = previews && capabilities.contains(.preview)
        var items: [FetchAttribute] = [
            .uid, .flags, .envelope, .internalDate, .rfc822Size, .bodyStructure(extensions: true),
        ]
        if serverPreview { items.append(.preview(lazy: false)) }
        if enabled.contains(.condstore) { items.append(.modificationSequence) }
        do {
            // Work in chunks, one command at a time: the preview fetch of a chunk must not overlap
            // the summary fetch (their responses could not be told apart).
            let numbers: [UInt32]
            if let explicit = uids.numbers {
                numbers = explicit
            } else {
                numbers = try await search([.uid(uids)]).uids.reversed()
            }
            stream.setTotal(numbers.count)
            var start = 0
            while start < numbers.count {
                guard await stream.waitForDemand(bufferedAtMost: 500) else { return }
                let chunk = SequenceSet(numbers: numbers[start..<min(numbers.count, start + 500)])
                start += 500
                var batch: [MessageSummary] = []
                for try await message in fetch(chunk, items: items) {
                    guard let uid = message.uid else { continue }
                    var summary = MessageSummary(uid: uid, flags: message.flags ?? [])
                    summary.envelope = message.envelope
                    summary.internalDate = message.internalDate
                    summary.size = message.size
                    summary.bodyStructure = message.bodyStructure
                    summary.modificationSequence = message.modificationSequence
                    if serverPreview { summary.preview = message.preview.map { PreviewText.make(from: $0.string) } }
                    batch.append(summary)
                }
                guard try await deliver(&batch, makePreviews: previews && !serverPreview, to: stream) else { return }
            }
            stream.finish()
        } catch {
            stream.finish(throwing: error)
        }
    }

    /// Fills in previews from text parts when needed and hands the batch over; false when the
    /// consumer has gone.
    private func deliver(
        _ batch: inout [MessageSummary], makePreviews: Bool, to stream: MessageStream<MessageSummary>
    ) async throws(IMAPError) -> Bool {
        if makePreviews { try await fillPreviews(&batch) }
        guard !stream.isConsumerGone else { return false }
        for summary in batch { stream.yield(summary) }
        stream.flush()
        batch.removeAll(keepingCapacity: true)
        return true
    }

    private func fillPreviews(_ batch: inout [MessageSummary]) async throws(IMAPError) {
        var groups: [[UInt32]: [UInt32]] = [:]
        var locations: [UInt32: TextPartLocation] = [:]
        for summary in batch {
            guard let structure = summary.bodyStructure, let location = TextPartLocation.first(in: structure) else {
                continue
            }
            locations[summary.uid] = location
            groups[location.path, default: []].append(summary.uid)
        }
        var texts: [UInt32: String] = [:]
        for (path, uids) in groups {
            let section = SectionSpecifier(part: path)
            let item = FetchAttribute.bodySection(
                peek: true, section: section, partial: FetchAttribute.Partial(offset: 0, length: 2048))
            for try await message in fetch(SequenceSet(numbers: uids), items: [.uid, item]) {
                guard let uid = message.uid, let location = locations[uid] else { continue }
                for case .bodySection(let returned, _, let data?) in message.attributes where returned.part == path {
                    texts[uid] = location.decode(Array(data.bytes))
                }
            }
        }
        for index in batch.indices {
            if let text = texts[batch[index].uid] {
                batch[index].preview = PreviewText.make(
                    from: text, isHTML: locations[batch[index].uid]?.isHTML ?? false)
            }
        }
    }
}

/// Where the first readable text part of a message is, and how to decode it.
struct TextPartLocation: Hashable {
    var path: [UInt32]
    var encoding: String
    var charset: String
    var isHTML: Bool

    /// The first text/plain part (or text/html when there is none), skipping attachments.
    static func first(in structure: BodyStructure) -> TextPartLocation? {
        candidates(in: structure, path: []).min { left, right in
            (left.isHTML ? 1 : 0, left.path.count) < (right.isHTML ? 1 : 0, right.path.count)
        }
    }

    private static func candidates(in structure: BodyStructure, path: [UInt32]) -> [TextPartLocation] {
        switch structure {
        case .invalid: return []
        case .multipart(let multipart):
            var found: [TextPartLocation] = []
            for (offset, part) in multipart.parts.enumerated() {
                found += candidates(in: part, path: path + [UInt32(offset + 1)])
                if !found.isEmpty && !multipart.mediaSubtype.equalsCaseInsensitive("alternative") { break }
            }
            return found
        case .singlepart(let part):
            guard part.mediaType.equalsCaseInsensitive("text") else { return [] }
            if let disposition = part.extension?.disposition, disposition.kind.equalsCaseInsensitive("attachment") {
                return []
            }
            let isHTML = part.mediaSubtype.equalsCaseInsensitive("html")
            guard isHTML || part.mediaSubtype.equalsCaseInsensitive("plain") else { return [] }
            let charset = part.parameters.first { $0.name.equalsCaseInsensitive("charset") }?.value.string ?? "us-ascii"
            return [
                TextPartLocation(
                    path: path.isEmpty ? [1] : path, encoding: part.encoding.string.lowercased(), charset: charset,
                    isHTML: isHTML)
            ]
        }
    }

    /// The text of the first bytes of the part (a cut-off base64 group or QP escape is dropped).
    func decode(_ bytes: [UInt8]) -> String {
        let decoded: [UInt8]
        switch encoding {
        case "base64":
            let alphabet = bytes.filter { $0 > 0x20 }
            decoded = Base64.decode(alphabet.prefix(alphabet.count - alphabet.count % 4))
        case "quoted-printable":
            decoded = QuotedPrintable.decode(bytes)
        default:
            decoded = bytes
        }
        if let text = Charset.decode(decoded, charset: charset) { return text }
        return String(decoding: decoded, as: UTF8.self)
    }
}
