/// `* n FETCH (attributes)` (RFC 3501 7.4.2, RFC 9051 7.5.2).
///
/// ```
/// S: * 1 FETCH (UID 1 FLAGS (\Seen) RFC822.SIZE 1962 ENVELOPE (...))
/// ```
public struct FetchResponse: Hashable, Sendable {
    /// The message sequence number.
    public var sequenceNumber: UInt32
    /// The attributes in the order the server sent them.
    public var attributes: [MessageAttribute]

    public init(sequenceNumber: UInt32, attributes: [MessageAttribute]) {
        self.sequenceNumber = sequenceNumber
        self.attributes = attributes
    }

    /// The UID, when sent.
    public var uid: UInt32? {
        for index in attributes.indices { if case .uid(let value) = attributes[index] { return value } }
        return nil
    }

    /// The flags, when sent.
    public var flags: [Flag]? {
        for index in attributes.indices { if case .flags(let value) = attributes[index] { return value } }
        return nil
    }

    /// The envelope, when sent.
    public var envelope: Envelope? {
        for index in attributes.indices { if case .envelope(let value) = attributes[index] { return value } }
        return nil
    }

    /// The BODYSTRUCTURE (or BODY) value, when sent.
    public var bodyStructure: BodyStructure? {
        for index in attributes.indices {
            switch attributes[index] {
            case .bodyStructure(let value), .body(let value): return value
            default: continue
            }
        }
        return nil
    }

    /// INTERNALDATE, when sent.
    public var internalDate: IMAPDateTime? {
        for index in attributes.indices { if case .internalDate(let value) = attributes[index] { return value } }
        return nil
    }

    /// RFC822.SIZE, when sent.
    public var size: UInt64? {
        for index in attributes.indices { if case .rfc822Size(let value) = attributes[index] { return value } }
        return nil
    }

    /// MODSEQ, when sent.
    public var modificationSequence: UInt64? {
        for index in attributes.indices {
            if case .modificationSequence(let value) = attributes[index] { return value }
        }
        return nil
    }

    /// PREVIEW, when sent (nil also when the server sent NIL).
    public var preview: ByteString? {
        for index in attributes.indices { if case .preview(let value) = attributes[index] { return value } }
        return nil
    }

    /// The bytes of `BODY[section]` (any origin), when sent.
    public func bodySection(_ section: SectionSpecifier) -> ByteString? {
        for index in attributes.indices {
            if case .bodySection(section, _, let data) = attributes[index] { return data }
        }
        return nil
    }
}

/// One item of a FETCH response.
public enum MessageAttribute: Hashable, Sendable {
    case uid(UInt32)
    case flags([Flag])
    case internalDate(IMAPDateTime)
    /// RFC822.SIZE (RFC 9051 allows 63 bits).
    case rfc822Size(UInt64)
    case envelope(Envelope)
    /// BODY (the non-extensible BODYSTRUCTURE).
    case body(BodyStructure)
    case bodyStructure(BodyStructure)
    /// `BODY[section]<origin> nstring`.
    case bodySection(SectionSpecifier, origin: UInt32?, ByteString?)
    /// `BINARY[part]<origin> nstring/literal8` (RFC 3516).
    case binary(part: [UInt32], origin: UInt32?, ByteString?)
    /// `BINARY.SIZE[part] n`.
    case binarySize(part: [UInt32], UInt32)
    case rfc822(ByteString?)
    case rfc822Header(ByteString?)
    case rfc822Text(ByteString?)
    /// PREVIEW (RFC 8970).
    case preview(ByteString?)
    /// MODSEQ (RFC 7162).
    case modificationSequence(UInt64)
    /// X-GM-MSGID (Gmail).
    case gmailMessageID(UInt64)
    /// X-GM-THRID (Gmail).
    case gmailThreadID(UInt64)
    /// X-GM-LABELS (Gmail).
    case gmailLabels([ByteString])
    /// An attribute this parser does not know, with its name and the raw bytes of its value.
    case unknown(name: String, raw: ByteString)
}
