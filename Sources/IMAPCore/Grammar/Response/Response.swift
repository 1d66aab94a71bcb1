/// One response from an IMAP server (RFC 3501 7, RFC 9051 7).
///
/// ```
/// S: * 3 EXISTS                 -> .untagged(.exists(3))
/// S: * 1 FETCH (UID 7 FLAGS ()) -> .untagged(.fetch(...))
/// S: + Ready                    -> .continuation(...)
/// S: a1 OK [READ-WRITE] done    -> .tagged(...)
/// ```
public enum Response: Hashable, Sendable {
    /// `* ...`: data or a status the server sends on its own or for a command.
    case untagged(UntaggedResponse)
    /// `tag OK/NO/BAD ...`: the end of a command.
    case tagged(TaggedResponse)
    /// `+ ...`: the server waits for a literal or a SASL answer.
    case continuation(ContinuationRequest)
}

/// `+ text` or `+ base64` (RFC 3501 `continue-req`).
public struct ContinuationRequest: Hashable, Sendable {
    /// The text after `+ ` (for AUTHENTICATE, the base64 challenge).
    public var text: ByteString

    public init(text: ByteString) { self.text = text }
}

/// The result of a command: `tag OK|NO|BAD [code] text`.
public struct TaggedResponse: Hashable, Sendable {
    public var tag: String
    public var status: ResponseStatus
    public var text: ResponseText

    public init(tag: String, status: ResponseStatus, text: ResponseText) {
        self.tag = tag
        self.status = status
        self.text = text
    }
}

/// The outcome of a command.
public enum ResponseStatus: Hashable, Sendable {
    case ok
    case no
    case bad
}

/// The states an untagged status response can carry (`* OK`, `* NO`, `* BAD`, `* BYE`, and
/// `* PREAUTH` in a greeting).
public enum UntaggedStatus: Hashable, Sendable {
    case ok
    case no
    case bad
    case bye
    case preauth
}

/// `["[" resp-text-code "]" SP] text`.
public struct ResponseText: Hashable, Sendable {
    public var code: ResponseCode?
    public var text: ByteString

    public init(code: ResponseCode? = nil, text: ByteString = "") {
        self.code = code
        self.text = text
    }
}

/// Untagged server data (RFC 3501 7.2-7.5, RFC 9051 7).
public enum UntaggedResponse: Hashable, Sendable {
    /// `* OK|NO|BAD|BYE|PREAUTH [code] text`; the greeting is one of these.
    case condition(UntaggedStatus, ResponseText)
    /// `* CAPABILITY ...`.
    case capability([Capability])
    /// `* ENABLED ...` (RFC 5161).
    case enabled([Capability])
    /// `* FLAGS (...)`.
    case flags([Flag])
    /// `* LIST (attributes) delimiter name`.
    case list(MailboxListItem)
    /// `* LSUB (attributes) delimiter name`.
    case lsub(MailboxListItem)
    /// `* STATUS mailbox (attribute value ...)`.
    case mailboxStatus(MailboxName, MailboxStatus)
    /// `* SEARCH n n ...` with the RFC 7162 `(MODSEQ n)` when present.
    case search([UInt32], modificationSequence: UInt64?)
    /// `* ESEARCH ...` (RFC 4731).
    case extendedSearch(ExtendedSearchResponse)
    /// `* SORT n n ...` (RFC 5256) with `(MODSEQ n)` when present.
    case sort([UInt32], modificationSequence: UInt64?)
    /// `* n EXISTS`.
    case exists(UInt32)
    /// `* n RECENT`.
    case recent(UInt32)
    /// `* n EXPUNGE`.
    case expunge(UInt32)
    /// `* VANISHED [(EARLIER)] uid-set` (RFC 7162).
    case vanished(earlier: Bool, SequenceSet)
    /// `* NAMESPACE personal other shared` (RFC 2342).
    case namespace(NamespaceResponse)
    /// `* ID (...)` or `* ID NIL` (RFC 2971).
    case id([IDParameter]?)
    /// `* n FETCH (...)`.
    case fetch(FetchResponse)
    /// A response this parser does not know (`* THREAD ...`, `* XLIST ...`), kept with its bytes.
    case unknown(name: String, raw: ByteString)
}

/// One `key value` pair of an ID response.
public struct IDParameter: Hashable, Sendable {
    public var key: ByteString
    public var value: ByteString?

    public init(key: ByteString, value: ByteString?) {
        self.key = key
        self.value = value
    }
}

extension EncodeBuffer {
    // id-params-list = "(" *(string SP nstring) ")" / nil
    /// Writes the parameters of ID (RFC 2971), in a command or a response.
    public mutating func write(_ parameters: [IDParameter]?) {
        guard let parameters else {
            writeRaw("NIL")
            return
        }
        writeList(parameters) { buffer, parameter in
            buffer.writeString(parameter.key)
            buffer.writeSpace()
            buffer.writeNString(parameter.value)
        }
    }

    /// Writes `name cap1 cap2 ...` (CAPABILITY, ENABLED, ENABLE).
    public mutating func write(_ name: StaticString, capabilities: [Capability]) {
        writeRaw(name)
        for capability in capabilities {
            writeSpace()
            write(capability)
        }
    }
}
