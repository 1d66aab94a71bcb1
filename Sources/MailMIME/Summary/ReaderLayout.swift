/// Which part of a message a reader shows as its text and which it lists as attachments: the
/// one decision behind ``ReadableMessage`` (made of a parsed message) and behind fetching a
/// message's attachments from a server's BODYSTRUCTURE (made of that tree), so both list the
/// same parts.
///
/// - The text is the first `text/plain` part that is not an attachment by ``AttachmentRule``,
///   else the first such `text/html` part; encapsulated messages are not looked into.
/// - The attachments are the other leaf parts and encapsulated messages, in order, that are not
///   text, or are text with a file name or disposition `attachment`.
///
/// ```
/// let layout = ReaderLayout(root: message.root, facts: ReaderLayout.facts(of:), children: \.children)
/// layout.attachments.map(\.filename)   // ["report.pdf"]
/// ```
public struct ReaderLayout<Part> {
    /// What the decision reads of one part.
    public struct Facts: Hashable, Sendable {
        /// How a part holds its content.
        public enum Kind: Hashable, Sendable {
            /// A `multipart/*` container: its children are looked into.
            case multipart
            /// An encapsulated message (`message/rfc822`, `message/global`): listed whole.
            case message
            /// Any other part.
            case single
        }

        /// How the part holds its content.
        public var kind: Kind
        /// The Content-Type's type (`image`), any case.
        public var mediaType: String
        /// The Content-Type's subtype (`png`), any case.
        public var mediaSubtype: String
        /// The Content-Disposition's type (`inline`, `attachment`), any case, nil without one.
        public var disposition: String?
        /// Whether the part has a non-empty file name (Content-Disposition `filename` or
        /// Content-Type `name`).
        public var hasFileName: Bool

        /// The facts of a part.
        public init(kind: Kind, mediaType: String, mediaSubtype: String, disposition: String?, hasFileName: Bool) {
            self.kind = kind
            self.mediaType = mediaType
            self.mediaSubtype = mediaSubtype
            self.disposition = disposition
            self.hasFileName = hasFileName
        }

        var isText: Bool { mediaType.lowercased() == "text" }
    }

    /// The `text/plain` part a reader shows, if any.
    public var plainText: Part?
    /// The first `text/html` part that is not an attachment, if any (shown when there is no
    /// ``plainText``).
    public var html: Part?
    /// The parts listed as attachments, in the order the message has them.
    public var attachments: [Part]

    /// The layout of the tree under `root`; `children` gives a multipart's parts in order.
    public init(root: Part, facts: (Part) -> Facts, children: (Part) -> [Part]) {
        var plain: (index: Int, part: Part)?
        var html: (index: Int, part: Part)?
        var candidates: [(part: Part, facts: Facts)] = []
        func visit(_ part: Part) {
            let described = facts(part)
            switch described.kind {
            case .multipart:
                children(part).forEach(visit)
            case .message:
                candidates.append((part, described))
            case .single:
                if described.isText,
                    !AttachmentRule.isAttachment(
                        mediaType: described.mediaType, disposition: described.disposition,
                        fileName: described.hasFileName ? "named" : nil)
                {
                    let subtype = described.mediaSubtype.lowercased()
                    if subtype == "plain", plain == nil { plain = (candidates.count, part) }
                    if subtype == "html", html == nil { html = (candidates.count, part) }
                }
                candidates.append((part, described))
            }
        }
        visit(root)
        let body = (plain ?? html)?.index
        self.plainText = plain?.part
        self.html = html?.part
        self.attachments = candidates.indices.compactMap { index in
            let (part, described) = candidates[index]
            guard index != body else { return nil }
            guard !described.isText || described.hasFileName || described.disposition?.lowercased() == "attachment"
            else { return nil }
            return part
        }
    }
}

extension ReaderLayout where Part == MIMEPart {
    /// The layout of a parsed message.
    public init(_ message: MIMEMessage) {
        self.init(root: message.root, facts: Self.facts(of:), children: \.children)
    }

    /// What the decision reads of a parsed part.
    public static func facts(of part: MIMEPart) -> Facts {
        let kind: Facts.Kind
        switch part.kind {
        case .multipart: kind = .multipart
        case .message: kind = .message
        case .single: kind = .single
        }
        return Facts(
            kind: kind, mediaType: part.contentType.type, mediaSubtype: part.contentType.subtype,
            disposition: part.disposition?.type, hasFileName: !(part.filename ?? "").isEmpty)
    }
}

extension MIMEPart {
    /// The name a reader lists an attachment under: its file name (Content-Disposition
    /// `filename`, else Content-Type `name`, decoded), else for a forwarded message its subject;
    /// nil when there is neither.
    public var attachmentName: String? {
        if let name = filename, !name.isEmpty { return name }
        guard kind == .message else { return nil }
        return encapsulatedMessage?.header.decodedValue("subject").flatMap { $0.isEmpty ? nil : $0 }
    }
}
