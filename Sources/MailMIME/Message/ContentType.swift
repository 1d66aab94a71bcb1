/// One parameter of a Content-Type or Content-Disposition field, decoded: `charset`, `name`,
/// `boundary`, `filename`.
public struct MIMEParameter: Hashable, Sendable {
    /// The parameter name, lowercased (names are case-insensitive, RFC 2045 section 5.1), without
    /// the `*` and section numbers of RFC 2231.
    public var name: String
    /// The value: unquoted, RFC 2231 sections joined and decoded from their charset, RFC 2047
    /// encoded words (which mailers put in quoted values although RFC 2047 forbids it) decoded.
    public var value: String

    /// A parameter.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A Content-Type field (RFC 2045 section 5): media type, subtype and parameters.
///
/// ```
/// Content-Type: text/plain; charset="utf-8"; format=flowed
/// ContentType(parsing: Array(#"text/plain; charset="utf-8""#.utf8)).parameter("charset")  // "utf-8"
/// ```
public struct ContentType: Hashable, Sendable {
    /// The media type, lowercased: `text`, `multipart`, `application`; empty when the field has
    /// none.
    public var type: String
    /// The subtype, lowercased: `plain`, `mixed`, `pdf`; empty when the field has none.
    public var subtype: String
    /// The parameters, decoded, in the order they first appear.
    public var parameters: [MIMEParameter]

    /// A content type.
    public init(type: String, subtype: String, parameters: [MIMEParameter] = []) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters
    }

    /// `text/plain; charset=us-ascii`, the type of a body without a Content-Type field
    /// (RFC 2045 section 5.2).
    public static let textPlain = ContentType(
        type: "text", subtype: "plain", parameters: [MIMEParameter(name: "charset", value: "us-ascii")])

    /// `message/rfc822`, the type of a body part without a Content-Type field inside a
    /// multipart/digest (RFC 2046 section 5.1.5).
    public static let messageRFC822 = ContentType(type: "message", subtype: "rfc822")

    // content := "Content-Type" ":" type "/" subtype *(";" parameter)
    /// Parses a Content-Type field value. A malformed value yields what could be read: a missing
    /// subtype is empty, and parameters are read only after a complete `type/subtype`.
    public init(parsing value: some Collection<UInt8>) {
        let syntax = MIMESyntax.mediaType(Array(value)[...])
        self.type = String(decoding: syntax.type, as: UTF8.self).lowercased()
        self.subtype = String(decoding: syntax.subtype ?? [], as: UTF8.self).lowercased()
        self.parameters = MIMESyntax.decodedParameters(syntax.recoveredParameters)
    }

    /// `type/subtype`, lowercased.
    public var mimeType: String { type + "/" + subtype }

    /// The value of the parameter `name` (case-insensitive), or nil.
    public func parameter(_ name: String) -> String? {
        let wanted = name.lowercased()
        return parameters.first { $0.name == wanted }?.value
    }

    /// The `charset` parameter.
    public var charset: String? { parameter("charset") }

    /// The `boundary` parameter of a multipart type.
    public var boundary: String? { parameter("boundary") }

    /// Whether the type is `text/*`.
    public var isText: Bool { type == "text" }

    /// Whether the type is `multipart/*`.
    public var isMultipart: Bool { type == "multipart" }

    /// Whether the type is `message/rfc822` or `message/global` (RFC 6532), whose body is a
    /// whole message.
    public var isEncapsulatedMessage: Bool { type == "message" && (subtype == "rfc822" || subtype == "global") }
}

/// A Content-Disposition field (RFC 2183): `inline` or `attachment`, with a file name.
///
/// ```
/// Content-Disposition: attachment; filename*=utf-8''Rechnung%20M%C3%A4rz.pdf
/// ```
public struct ContentDisposition: Hashable, Sendable {
    /// The disposition type, lowercased: `inline`, `attachment`.
    public var type: String
    /// The parameters, decoded like those of ``ContentType``.
    public var parameters: [MIMEParameter]

    /// A disposition.
    public init(type: String, parameters: [MIMEParameter] = []) {
        self.type = type.lowercased()
        self.parameters = parameters
    }

    // disposition := "Content-Disposition" ":" disposition-type *(";" disposition-parm)
    /// Parses a Content-Disposition field value; nil when it has no disposition type.
    public init?(parsing value: some Collection<UInt8>) {
        guard let syntax = MIMESyntax.disposition(Array(value)[...], resynchronizing: true), !syntax.type.isEmpty else {
            return nil
        }
        self.type = String(decoding: syntax.type, as: UTF8.self).lowercased()
        self.parameters = MIMESyntax.decodedParameters(syntax.parameters)
    }

    /// The value of the parameter `name` (case-insensitive), or nil.
    public func parameter(_ name: String) -> String? {
        let wanted = name.lowercased()
        return parameters.first { $0.name == wanted }?.value
    }

    /// The `filename` parameter.
    public var filename: String? { parameter("filename") }

    /// Whether the type is `attachment`.
    public var isAttachment: Bool { type == "attachment" }
}
