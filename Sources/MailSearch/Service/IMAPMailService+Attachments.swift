import IMAPClient
import IMAPCore
import MailMIME

/// One attachment of a message with its content: what ``IMAPMailService/attachments(of:)`` gives
/// for each part `show` lists (``MessageContent/attachments``), in the same order.
public struct AttachmentContent: Hashable, Sendable {
    /// The file name (Content-Disposition `filename`, else Content-Type `name`, RFC 2231 and
    /// RFC 2047 decoded); for a forwarded message without one, its subject; nil when there is
    /// none (an inline image without a name).
    public var name: String?
    /// `type/subtype`, lowercased, as the server reports it: `application/pdf`.
    public var mimeType: String
    /// The content with its transfer encoding (base64, quoted-printable) undone; for a
    /// forwarded message (`message/rfc822`), the whole message.
    public var data: [UInt8]
    /// The part's number in the message, as IMAP numbers it (`[2]`, `[1, 3]`): `BODY[2]`.
    public var part: [UInt32]

    /// An attachment with its content.
    public init(name: String?, mimeType: String, data: [UInt8], part: [UInt32]) {
        self.name = name
        self.mimeType = mimeType
        self.data = data
        self.part = part
    }
}

extension IMAPMailService {
    /// The attachments of message `id`, of the open mailbox or another, with their content; nil
    /// when there is no such message. The parts are those `show` lists (``ReaderLayout``, one
    /// decision for both), found in the message's BODYSTRUCTURE and fetched alone with their
    /// MIME headers, so the rest of the message (its text, other parts) is not downloaded. Read
    /// with BODY.PEEK, which never marks the message read; a message of another mailbox is
    /// fetched on the second connection, which EXAMINEs that mailbox.
    ///
    /// ```
    /// C: A5 UID FETCH 42 (UID BODYSTRUCTURE)
    /// C: A6 UID FETCH 42 (UID BODY.PEEK[2] BODY.PEEK[2.MIME] BODY.PEEK[3] BODY.PEEK[3.MIME])
    /// ```
    /// ```swift
    /// for attachment in try await service.attachments(of: email.id) ?? [] {
    ///     try Data(attachment.data).write(to: folder.appending(path: attachment.name ?? "attachment"))
    /// }
    /// ```
    public func attachments(of id: Email.ID) async throws(MailServiceError) -> [AttachmentContent]? {
        let structureItems: [FetchAttribute] = [.uid, .bodyStructure(extensions: true)]
        guard let structure = try await fetchMessage(id, items: structureItems)?.bodyStructure else { return nil }
        let layout = ReaderLayout(
            root: StructurePart(structure: structure, path: []), facts: \.facts, children: \.children)
        guard !layout.attachments.isEmpty else { return [] }
        var items: [FetchAttribute] = [.uid]
        for part in layout.attachments {
            items.append(.bodySection(peek: true, section: SectionSpecifier(part: part.number), partial: nil))
            items.append(
                .bodySection(peek: true, section: SectionSpecifier(part: part.number, kind: .mime), partial: nil))
        }
        guard let response = try await fetchMessage(id, items: items) else { return nil }
        return layout.attachments.map { part in
            let header = response.bodySection(SectionSpecifier(part: part.number, kind: .mime)).map { Array($0.bytes) }
            let body = response.bodySection(SectionSpecifier(part: part.number)).map { Array($0.bytes) } ?? []
            // The part as a message of its own (its MIME header, then its body), so that MailMIME
            // reads its name and undoes its transfer encoding exactly as for `show`.
            let parsed = MIMEMessage(bytes: Self.headerBlock(header ?? []) + body)
            return AttachmentContent(
                name: parsed.root.attachmentName, mimeType: part.mimeType, data: parsed.root.decodedBody(in: parsed),
                part: part.number)
        }
    }

    /// UID FETCH of `items` for message `id`, on the connection of its mailbox; nil when the
    /// server sent nothing for it (no such message).
    private func fetchMessage(_ id: Email.ID, items: [FetchAttribute]) async throws(MailServiceError) -> FetchResponse?
    {
        let description = try await open()
        let fetched: [FetchResponse]
        if id.mailbox == description.name {
            guard id.uidValidity == description.uidValidity else {
                throw MailServiceError(
                    .mailboxChanged, "\(id.mailbox) was re-created on the server since it was listed; list it again")
            }
            do {
                fetched = try await connection.fetch(SequenceSet(id.uid), items: items)
            } catch {
                throw MailServiceError(error)
            }
        } else {
            fetched = try await others.fetch(
                SequenceSet(id.uid), items: items, in: id.mailbox, uidValidity: id.uidValidity)
        }
        return fetched.first { $0.uid == id.uid }
    }

    /// A MIME header as fetched (`BODY[n.MIME]`), ending with the empty line that separates it
    /// from the body however the server sent it.
    private static func headerBlock(_ header: [UInt8]) -> [UInt8] {
        let lineFeed = UInt8(ascii: "\n")
        if header.isEmpty { return Array("\r\n".utf8) }
        if header.last == lineFeed {
            let beforeLast = header.dropLast().last == UInt8(ascii: "\r") ? header.dropLast(2) : header.dropLast()
            return beforeLast.last == lineFeed ? header : header + Array("\r\n".utf8)
        }
        return header + Array("\r\n\r\n".utf8)
    }
}

/// A part of a BODYSTRUCTURE with its IMAP part number, as ``ReaderLayout`` walks it.
private struct StructurePart {
    let structure: BodyStructure
    /// The part number (`[1, 2]` for BODY[1.2]); empty for the message itself.
    let path: [UInt32]

    /// The number to fetch the part by: a message that is not multipart has one part, `[1]`.
    var number: [UInt32] { path.isEmpty ? [1] : path }

    var children: [StructurePart] {
        guard case .multipart(let multipart) = structure else { return [] }
        return multipart.parts.enumerated().map { StructurePart(structure: $1, path: path + [UInt32($0 + 1)]) }
    }

    var mimeType: String {
        switch structure {
        case .singlepart(let part): return "\(part.mediaType.string)/\(part.mediaSubtype.string)".lowercased()
        case .multipart(let multipart): return "multipart/\(multipart.mediaSubtype.string)".lowercased()
        case .invalid: return "application/octet-stream"
        }
    }

    var facts: ReaderLayout<StructurePart>.Facts {
        switch structure {
        case .singlepart(let part):
            let kind: ReaderLayout<StructurePart>.Facts.Kind
            if case .message = part.kind { kind = .message } else { kind = .single }
            return .init(
                kind: kind, mediaType: part.mediaType.string, mediaSubtype: part.mediaSubtype.string,
                disposition: part.extension?.disposition?.kind.string,
                hasFileName: !(part.fileNameParameter ?? "").isEmpty)
        case .multipart(let multipart):
            return .init(
                kind: .multipart, mediaType: "multipart", mediaSubtype: multipart.mediaSubtype.string,
                disposition: nil, hasFileName: false)
        case .invalid:
            // A part the server could not describe: not listed (as a reader could not name it).
            return .init(
                kind: .single, mediaType: "text", mediaSubtype: "x-invalid", disposition: nil, hasFileName: false)
        }
    }
}
