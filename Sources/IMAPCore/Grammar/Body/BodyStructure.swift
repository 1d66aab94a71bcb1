/// A BODYSTRUCTURE or BODY value (RFC 3501 7.4.2, RFC 9051 7.5.2): the MIME tree of a message.
///
/// ```
/// S: * 2 FETCH (BODYSTRUCTURE (("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 1557 23 NIL NIL NIL NIL)
///      ("text" "html" ...) "alternative" ("boundary" "...") NIL NIL NIL))
/// ```
public indirect enum BodyStructure: Hashable, Sendable {
    /// A leaf part.
    case singlepart(SinglePartBody)
    /// A multipart container.
    case multipart(MultipartBody)
    /// A value that does not fit the grammar, kept with its raw bytes so the rest of the FETCH
    /// response is still usable.
    case invalid(ByteString)

    /// Whether any part is an attachment (a Content-Disposition of `attachment`, or a non-text,
    /// non-multipart part with a file name).
    public var hasAttachment: Bool {
        switch self {
        case .invalid: return false
        case .multipart(let multipart): return multipart.parts.contains { $0.hasAttachment }
        case .singlepart(let part):
            if let disposition = part.extension?.disposition {
                if disposition.kind.equalsCaseInsensitive("attachment") { return true }
                if disposition.kind.equalsCaseInsensitive("inline") { return false }
            }
            if case .message(_, let body, _) = part.kind, body.hasAttachment { return true }
            let hasName = part.parameters.contains { $0.name.equalsCaseInsensitive("name") }
            return hasName && !part.mediaType.equalsCaseInsensitive("text")
        }
    }
}

/// A leaf part of a body structure.
public struct SinglePartBody: Hashable, Sendable {
    /// What kind of leaf it is, with the fields that kind adds.
    public enum Kind: Hashable, Sendable {
        /// Any type other than text and message/rfc822.
        case basic
        /// `text/*`, with its size in lines.
        case text(lineCount: UInt32)
        /// `message/rfc822` (or `message/global`): the inner message's envelope, structure and
        /// size in lines.
        case message(Envelope, BodyStructure, lineCount: UInt32)
    }

    /// `text`, `image`, `application`, ...
    public var mediaType: ByteString
    /// `plain`, `html`, `pdf`, ...
    public var mediaSubtype: ByteString
    /// Content-Type parameters (`charset`, `name`).
    public var parameters: [BodyParameter]
    public var id: ByteString?
    public var description: ByteString?
    /// Content-Transfer-Encoding.
    public var encoding: ByteString
    /// Size in octets of the encoded body.
    public var size: UInt32
    public var kind: Kind
    /// The extension data, present in BODYSTRUCTURE (not in BODY).
    public var `extension`: BodyExtension?

    public init(
        mediaType: ByteString, mediaSubtype: ByteString, parameters: [BodyParameter] = [], id: ByteString? = nil,
        description: ByteString? = nil, encoding: ByteString, size: UInt32, kind: Kind,
        extension: BodyExtension? = nil
    ) {
        self.mediaType = mediaType
        self.mediaSubtype = mediaSubtype
        self.parameters = parameters
        self.id = id
        self.description = description
        self.encoding = encoding
        self.size = size
        self.kind = kind
        self.extension = `extension`
    }
}

/// A multipart container.
public struct MultipartBody: Hashable, Sendable {
    public var parts: [BodyStructure]
    /// `mixed`, `alternative`, `related`, ...
    public var mediaSubtype: ByteString
    /// The extension data, present in BODYSTRUCTURE (not in BODY).
    public var `extension`: BodyExtension?

    public init(parts: [BodyStructure], mediaSubtype: ByteString, extension: BodyExtension? = nil) {
        self.parts = parts
        self.mediaSubtype = mediaSubtype
        self.extension = `extension`
    }
}

/// A `name value` pair of Content-Type or Content-Disposition parameters.
public struct BodyParameter: Hashable, Sendable {
    public var name: ByteString
    public var value: ByteString

    public init(name: ByteString, value: ByteString) {
        self.name = name
        self.value = value
    }
}

/// Content-Disposition: `("attachment" ("filename" "a.pdf"))`.
public struct BodyDisposition: Hashable, Sendable {
    public var kind: ByteString
    public var parameters: [BodyParameter]

    public init(kind: ByteString, parameters: [BodyParameter] = []) {
        self.kind = kind
        self.parameters = parameters
    }
}

/// The optional extension fields of a part (RFC 3501 `body-ext-1part` / `body-ext-mpart`).
///
/// The fields come in a fixed order and a server may stop after any of them; `fieldCount` says
/// how many it sent, so an encoder writes exactly the same.
public struct BodyExtension: Hashable, Sendable {
    /// Single part: `body-fld-md5`. Multipart: unused (the first field is `parameters`).
    public var md5: ByteString?
    /// Multipart: Content-Type parameters (`boundary`).
    public var parameters: [BodyParameter]
    public var disposition: BodyDisposition?
    /// Content-Language values (empty for NIL).
    public var language: [ByteString]
    /// Content-Location.
    public var location: ByteString?
    /// Further extension values a future RFC may add.
    public var extensions: [BodyExtensionValue]
    /// How many of the fields (first field, disposition, language, location, extensions...) were sent.
    public var fieldCount: Int

    public init(
        md5: ByteString? = nil, parameters: [BodyParameter] = [], disposition: BodyDisposition? = nil,
        language: [ByteString] = [], location: ByteString? = nil, extensions: [BodyExtensionValue] = [],
        fieldCount: Int
    ) {
        self.md5 = md5
        self.parameters = parameters
        self.disposition = disposition
        self.language = language
        self.location = location
        self.extensions = extensions
        self.fieldCount = fieldCount
    }
}

/// `body-extension = nstring / number / "(" body-extension *(SP body-extension) ")"`.
public indirect enum BodyExtensionValue: Hashable, Sendable {
    case string(ByteString?)
    case number(UInt64)
    case list([BodyExtensionValue])
}
