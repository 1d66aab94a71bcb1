/// The server side's response encoder: writes `Response` values as bytes.
///
/// ```swift
/// var buffer = EncodeBuffer(options: .server)
/// buffer.write(.untagged(.exists(3)))   // "* 3 EXISTS\r\n"
/// ```
/// Strings are quoted when they can be, literals (`{n}`) otherwise; sequence sets are
/// compressed. Human-readable text (after a status, a response code's value, a continuation
/// request) never carries a control byte: see `writeText(_:)`.
public enum ResponseEncoder {
    /// The bytes of `response`, CRLF included.
    public static func encode(_ response: Response, options: EncodingOptions = .server) -> [UInt8] {
        var buffer = EncodeBuffer(options: options)
        buffer.write(response)
        return buffer.takeBytes()
    }
}

extension EncodeBuffer {
    /// Writes one response and its CRLF.
    public mutating func write(_ response: Response) {
        switch response {
        case .continuation(let request):
            writeRaw("+ ")
            writeText(request.text.bytes)
        case .tagged(let tagged):
            writeRaw(tagged.tag)
            writeSpace()
            switch tagged.status {
            case .ok: writeRaw("OK")
            case .no: writeRaw("NO")
            case .bad: writeRaw("BAD")
            }
            write(tagged.text)
        case .untagged(let untagged):
            writeRaw("* ")
            write(untagged)
        }
        writeCRLF()
    }

    /// Writes ` [code] text` (the leading space included).
    public mutating func write(_ text: ResponseText) {
        guard text.code != nil || !text.text.isEmpty else { return }
        writeSpace()
        if let code = text.code {
            write(code)
            writeSpace()
        }
        writeText(text.text.bytes)
    }

    /// Writes human-readable text (`text = 1*TEXT-CHAR`, RFC 3501 9) with every control byte
    /// (C0, CR and LF among them, and DEL) replaced by a space.
    ///
    /// Text often quotes what a client sent (a mailbox name in `NO Mailbox does not exist: ...`):
    /// a CRLF in it would end the response early and make the rest a response of its own
    /// (`a1 NO ... x` CRLF `A1 OK ...`), and other controls reach the terminal of whoever reads
    /// the answer. Every response text goes through here, so no caller has to remember.
    public mutating func writeText<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        appendBytes(bytes.lazy.map { $0 < 0x20 || $0 == 0x7F ? UInt8(ascii: " ") : $0 })
    }

    /// Writes `[code]`.
    public mutating func write(_ code: ResponseCode) {
        writeRaw("[")
        switch code {
        case .alert: writeRaw("ALERT")
        case .authenticationFailed: writeRaw("AUTHENTICATIONFAILED")
        case .parse: writeRaw("PARSE")
        case .readOnly: writeRaw("READ-ONLY")
        case .readWrite: writeRaw("READ-WRITE")
        case .tryCreate: writeRaw("TRYCREATE")
        case .noModificationSequence: writeRaw("NOMODSEQ")
        case .closed: writeRaw("CLOSED")
        case .uidNotSticky: writeRaw("UIDNOTSTICKY")
        case .badCharset(let charsets):
            writeRaw("BADCHARSET")
            if !charsets.isEmpty {
                writeSpace()
                writeList(charsets) { buffer, charset in buffer.writeAString(charset) }
            }
        case .capability(let capabilities):
            write("CAPABILITY", capabilities: capabilities)
        case .permanentFlags(let flags):
            writeRaw("PERMANENTFLAGS ")
            write(flags)
        case .uidNext(let value):
            writeRaw("UIDNEXT ")
            writeNumber(value)
        case .uidValidity(let value):
            writeRaw("UIDVALIDITY ")
            writeNumber(value)
        case .unseen(let value):
            writeRaw("UNSEEN ")
            writeNumber(value)
        case .highestModificationSequence(let value):
            writeRaw("HIGHESTMODSEQ ")
            writeNumber(value)
        case .modified(let set):
            writeRaw("MODIFIED ")
            write(set)
        case .appendUID(let validity, let uids):
            writeRaw("APPENDUID ")
            writeNumber(validity)
            writeSpace()
            write(uids)
        case .copyUID(let validity, let source, let destination):
            writeRaw("COPYUID ")
            writeNumber(validity)
            writeSpace()
            write(source)
            writeSpace()
            write(destination)
        case .other(let name, let value):
            writeRaw(name)
            if let value {
                writeSpace()
                // resp-text-code = atom [SP 1*<any TEXT-CHAR except "]">]
                writeText(value.bytes.map { $0 == UInt8(ascii: "]") ? UInt8(ascii: " ") : $0 })
            }
        }
        writeRaw("]")
    }

    /// Writes untagged data after `* `.
    public mutating func write(_ response: UntaggedResponse) {
        switch response {
        case .condition(let status, let text):
            switch status {
            case .ok: writeRaw("OK")
            case .no: writeRaw("NO")
            case .bad: writeRaw("BAD")
            case .bye: writeRaw("BYE")
            case .preauth: writeRaw("PREAUTH")
            }
            write(text)
        case .capability(let capabilities):
            write("CAPABILITY", capabilities: capabilities)
        case .enabled(let capabilities):
            write("ENABLED", capabilities: capabilities)
        case .flags(let flags):
            writeRaw("FLAGS ")
            write(flags)
        case .list(let item):
            writeRaw("LIST ")
            write(item)
        case .lsub(let item):
            writeRaw("LSUB ")
            write(item)
        case .mailboxStatus(let mailbox, let status):
            writeRaw("STATUS ")
            write(mailbox)
            writeSpace()
            write(status)
        case .search(let numbers, let modificationSequence):
            writeRaw("SEARCH")
            writeNumbers(numbers, modificationSequence: modificationSequence)
        case .sort(let numbers, let modificationSequence):
            writeRaw("SORT")
            writeNumbers(numbers, modificationSequence: modificationSequence)
        case .extendedSearch(let result):
            write(result)
        case .exists(let count):
            writeNumber(count)
            writeRaw(" EXISTS")
        case .recent(let count):
            writeNumber(count)
            writeRaw(" RECENT")
        case .expunge(let number):
            writeNumber(number)
            writeRaw(" EXPUNGE")
        case .vanished(let earlier, let set):
            writeRaw(earlier ? "VANISHED (EARLIER) " : "VANISHED ")
            write(set)
        case .namespace(let namespace):
            writeRaw("NAMESPACE ")
            write(namespace.personal)
            writeSpace()
            write(namespace.otherUsers)
            writeSpace()
            write(namespace.shared)
        case .id(let parameters):
            writeRaw("ID ")
            write(parameters)
        case .fetch(let fetch):
            write(fetch)
        case .unknown(let name, let raw):
            writeRaw(name)
            if !raw.isEmpty {
                writeSpace()
                writeBytes(raw.bytes)
            }
        }
    }

    private mutating func writeNumbers(_ numbers: [UInt32], modificationSequence: UInt64?) {
        for number in numbers {
            writeSpace()
            writeNumber(number)
        }
        if let modificationSequence {
            writeRaw(" (MODSEQ ")
            writeNumber(modificationSequence)
            writeRaw(")")
        }
    }

    /// Writes `(attributes) delimiter name [extended]` of LIST/LSUB.
    public mutating func write(_ item: MailboxListItem) {
        writeList(item.attributes) { buffer, attribute in buffer.writeRaw(attribute) }
        writeSpace()
        if let delimiter = item.delimiter {
            writeQuoted([delimiter])
        } else {
            writeRaw("NIL")
        }
        writeSpace()
        write(item.name)
        if let extended = item.extendedData {
            writeSpace()
            writeBytes(extended.bytes)
        }
    }

    /// Writes `(NAME value ...)` of STATUS.
    public mutating func write(_ status: MailboxStatus) {
        var items: [(String, UInt64)] = []
        if let value = status.messageCount { items.append(("MESSAGES", UInt64(value))) }
        if let value = status.recentCount { items.append(("RECENT", UInt64(value))) }
        if let value = status.uidNext { items.append(("UIDNEXT", UInt64(value))) }
        if let value = status.uidValidity { items.append(("UIDVALIDITY", UInt64(value))) }
        if let value = status.unseenCount { items.append(("UNSEEN", UInt64(value))) }
        if let value = status.deletedCount { items.append(("DELETED", UInt64(value))) }
        if let value = status.size { items.append(("SIZE", value)) }
        if let value = status.highestModificationSequence { items.append(("HIGHESTMODSEQ", value)) }
        if let value = status.appendLimit { items.append(("APPENDLIMIT", value)) }
        for (name, value) in status.other.sorted(by: { $0.key < $1.key }) { items.append((name, value)) }
        writeList(items) { buffer, item in
            buffer.writeRaw(item.0)
            buffer.writeSpace()
            buffer.writeNumber(item.1)
        }
    }

    /// Writes `ESEARCH [(TAG "t")] [UID] ...`.
    public mutating func write(_ result: ExtendedSearchResponse) {
        writeRaw("ESEARCH")
        if let tag = result.tag {
            writeRaw(" (TAG ")
            writeString(ByteString(tag))
            writeRaw(")")
        }
        if result.isUID { writeRaw(" UID") }
        if let value = result.min {
            writeRaw(" MIN ")
            writeNumber(value)
        }
        if let value = result.max {
            writeRaw(" MAX ")
            writeNumber(value)
        }
        if let value = result.count {
            writeRaw(" COUNT ")
            writeNumber(value)
        }
        if let set = result.all {
            writeRaw(" ALL ")
            write(set)
        }
        if let value = result.modificationSequence {
            writeRaw(" MODSEQ ")
            writeNumber(value)
        }
        for other in result.other {
            writeSpace()
            writeRaw(other.name)
            writeSpace()
            writeBytes(other.raw.bytes)
        }
    }

    private mutating func write(_ namespaces: [NamespaceDescription]) {
        if namespaces.isEmpty {
            writeRaw("NIL")
            return
        }
        // namespace = nil / "(" 1*namespace-descr ")": no spaces between descriptions.
        writeRaw("(")
        for namespace in namespaces {
            writeRaw("(")
            writeString(namespace.prefix)
            writeSpace()
            if let delimiter = namespace.delimiter {
                writeQuoted([delimiter])
            } else {
                writeRaw("NIL")
            }
            if let extensions = namespace.extensions { writeBytes(extensions.bytes) }
            writeRaw(")")
        }
        writeRaw(")")
    }
}
