public import IMAPCore
public import JSONText

/// The JSON form of parsed responses that `mailsearch debug parse` prints, one object per
/// response. Every object starts with `"kind"`; keys come in a fixed order, and a FETCH object
/// has a key only for the items the server sent.
///
/// ```
/// S: * 3 FETCH (UID 3 FLAGS (\Seen) RFC822.SIZE 2411)
/// {"kind":"fetch","seq":3,"uid":3,"flags":["\\Seen"],"size":2411}
/// ```
public enum ResponseJSON {
    /// The object for `response`.
    public static func object(for response: Response) -> JSONObject {
        switch response {
        case .tagged(let tagged):
            var object: JSONObject = [
                "kind": "tagged", "tag": .string(tagged.tag), "status": .string(name(tagged.status)),
            ]
            appendText(tagged.text, to: &object)
            return object
        case .continuation(let continuation):
            return ["kind": "continuation", "text": .string(continuation.text.string)]
        case .untagged(let untagged):
            return object(for: untagged)
        }
    }

    /// The object for an untagged response.
    public static func object(for response: UntaggedResponse) -> JSONObject {
        switch response {
        case .condition(let status, let text):
            var object: JSONObject = ["kind": "condition", "status": .string(name(status))]
            appendText(text, to: &object)
            return object
        case .capability(let capabilities):
            return ["kind": "capability", "capabilities": .array(capabilities.map { .string($0.rawValue) })]
        case .enabled(let capabilities):
            return ["kind": "enabled", "capabilities": .array(capabilities.map { .string($0.rawValue) })]
        case .flags(let flags):
            return ["kind": "flags", "flags": json(flags)]
        case .list(let item):
            return listObject(kind: "list", item)
        case .lsub(let item):
            return listObject(kind: "lsub", item)
        case .mailboxStatus(let mailbox, let status):
            return statusObject(mailbox, status)
        case .search(let numbers, let modificationSequence):
            var object: JSONObject = ["kind": "search", "numbers": .array(numbers.map { .number($0) })]
            if let modificationSequence { object.append("modseq", .number(modificationSequence)) }
            return object
        case .sort(let numbers, let modificationSequence):
            var object: JSONObject = ["kind": "sort", "numbers": .array(numbers.map { .number($0) })]
            if let modificationSequence { object.append("modseq", .number(modificationSequence)) }
            return object
        case .extendedSearch(let search):
            return extendedSearchObject(search)
        case .exists(let count):
            return ["kind": "exists", "count": .number(count)]
        case .recent(let count):
            return ["kind": "recent", "count": .number(count)]
        case .expunge(let sequenceNumber):
            return ["kind": "expunge", "seq": .number(sequenceNumber)]
        case .vanished(let earlier, let set):
            return ["kind": "vanished", "earlier": .bool(earlier), "uids": .string(set.description)]
        case .namespace(let namespace):
            return [
                "kind": "namespace", "personal": json(namespace.personal), "otherUsers": json(namespace.otherUsers),
                "shared": json(namespace.shared),
            ]
        case .id(let parameters):
            guard let parameters else { return ["kind": "id", "parameters": nil] }
            var object = JSONObject()
            for parameter in parameters {
                object.append(parameter.key.string, .string(parameter.value?.string))
            }
            return ["kind": "id", "parameters": .object(object)]
        case .fetch(let fetch):
            return fetchObject(fetch)
        case .unknown(let name, let raw):
            return ["kind": "unknown", "name": .string(name), "raw": .string(raw.string)]
        }
    }

    // MARK: - Status responses

    private static func name(_ status: ResponseStatus) -> String {
        switch status {
        case .ok: return "OK"
        case .no: return "NO"
        case .bad: return "BAD"
        }
    }

    private static func name(_ status: UntaggedStatus) -> String {
        switch status {
        case .ok: return "OK"
        case .no: return "NO"
        case .bad: return "BAD"
        case .bye: return "BYE"
        case .preauth: return "PREAUTH"
        }
    }

    /// `"code":{"name":"MODIFIED","value":"5"}` (or null) and `"text"`.
    private static func appendText(_ text: ResponseText, to object: inout JSONObject) {
        object.append("code", text.code.map { .object(codeObject($0)) } ?? .null)
        object.append("text", .string(text.text.string))
    }

    /// A response code as `{"name": ..., "value": ...}`; the value's shape depends on the code
    /// (a number, a list, a set as text, or null when the code has none).
    public static func codeObject(_ code: ResponseCode) -> JSONObject {
        func entry(_ name: String, _ value: JSONValue = .null) -> JSONObject {
            ["name": .string(name), "value": value]
        }
        switch code {
        case .alert: return entry("ALERT")
        case .authenticationFailed: return entry("AUTHENTICATIONFAILED")
        case .badCharset(let charsets): return entry("BADCHARSET", .array(charsets.map { .string($0.string) }))
        case .capability(let capabilities):
            return entry("CAPABILITY", .array(capabilities.map { .string($0.rawValue) }))
        case .parse: return entry("PARSE")
        case .permanentFlags(let flags): return entry("PERMANENTFLAGS", json(flags))
        case .readOnly: return entry("READ-ONLY")
        case .readWrite: return entry("READ-WRITE")
        case .tryCreate: return entry("TRYCREATE")
        case .uidNext(let value): return entry("UIDNEXT", .number(value))
        case .uidValidity(let value): return entry("UIDVALIDITY", .number(value))
        case .unseen(let value): return entry("UNSEEN", .number(value))
        case .highestModificationSequence(let value): return entry("HIGHESTMODSEQ", .number(value))
        case .noModificationSequence: return entry("NOMODSEQ")
        case .modified(let set): return entry("MODIFIED", .string(set.description))
        case .appendUID(let uidValidity, let uids):
            return entry("APPENDUID", ["uidValidity": .number(uidValidity), "uids": .string(uids.description)])
        case .copyUID(let uidValidity, let source, let destination):
            return entry(
                "COPYUID",
                [
                    "uidValidity": .number(uidValidity), "source": .string(source.description),
                    "destination": .string(destination.description),
                ])
        case .closed: return entry("CLOSED")
        case .uidNotSticky: return entry("UIDNOTSTICKY")
        case .other(let name, let value): return entry(name, .string(value?.string))
        }
    }

    // MARK: - Mailbox data

    private static func json(_ flags: [Flag]) -> JSONValue { .array(flags.map { .string($0.rawValue) }) }

    private static func delimiter(_ byte: UInt8?) -> JSONValue {
        byte.map { .string(String(decoding: [$0], as: UTF8.self)) } ?? .null
    }

    private static func listObject(kind: String, _ item: MailboxListItem) -> JSONObject {
        var object: JSONObject = [
            "kind": .string(kind), "attributes": .array(item.attributes.map { .string($0) }),
            "delimiter": delimiter(item.delimiter), "mailbox": .string(item.name.description),
        ]
        appendDisplayName(of: item.name, to: &object)
        if let extended = item.extendedData { object.append("extended", .string(extended.string)) }
        return object
    }

    /// `"displayName"` when the wire name is modified UTF-7 (`&ZeVnLIqe-` is `日本語`).
    private static func appendDisplayName(of mailbox: MailboxName, to object: inout JSONObject) {
        let displayName = mailbox.displayName
        if displayName != mailbox.description { object.append("displayName", .string(displayName)) }
    }

    private static func statusObject(_ mailbox: MailboxName, _ status: MailboxStatus) -> JSONObject {
        var object: JSONObject = ["kind": "status", "mailbox": .string(mailbox.description)]
        appendDisplayName(of: mailbox, to: &object)
        let values: [(String, UInt64?)] = [
            ("messages", status.messageCount.map(UInt64.init)), ("recent", status.recentCount.map(UInt64.init)),
            ("uidNext", status.uidNext.map(UInt64.init)), ("uidValidity", status.uidValidity.map(UInt64.init)),
            ("unseen", status.unseenCount.map(UInt64.init)), ("deleted", status.deletedCount.map(UInt64.init)),
            ("size", status.size), ("highestModseq", status.highestModificationSequence),
            ("appendLimit", status.appendLimit),
        ]
        for case (let key, let value?) in values { object.append(key, .number(value)) }
        for key in status.other.keys.sorted() {
            if let value = status.other[key] { object.append(key, .number(value)) }
        }
        return object
    }

    private static func extendedSearchObject(_ search: ExtendedSearchResponse) -> JSONObject {
        var object: JSONObject = ["kind": "esearch", "tag": .string(search.tag), "uid": .bool(search.isUID)]
        if let min = search.min { object.append("min", .number(min)) }
        if let max = search.max { object.append("max", .number(max)) }
        if let count = search.count { object.append("count", .number(count)) }
        if let all = search.all { object.append("all", .string(all.description)) }
        if let modificationSequence = search.modificationSequence {
            object.append("modseq", .number(modificationSequence))
        }
        if !search.other.isEmpty {
            object.append(
                "other", .array(search.other.map { ["name": .string($0.name), "value": .string($0.raw.string)] }))
        }
        return object
    }

    private static func json(_ namespaces: [NamespaceDescription]) -> JSONValue {
        .array(
            namespaces.map { namespace in
                var object: JSONObject = [
                    "prefix": .string(namespace.prefix.string), "delimiter": delimiter(namespace.delimiter),
                ]
                if let extensions = namespace.extensions { object.append("extensions", .string(extensions.string)) }
                return .object(object)
            })
    }

    // MARK: - FETCH

    /// `{"kind":"fetch","seq":N,...}` with the items in this order: uid, flags, internalDate,
    /// size, modseq, envelope, structure, hasAttachment, sections, binary, binarySize, rfc822,
    /// rfc822Header, rfc822Text, preview, gmailMessageId, gmailThreadId, gmailLabels, unknown;
    /// each only when the server sent it. Section contents are summarised by their size.
    public static func fetchObject(_ fetch: FetchResponse) -> JSONObject {
        var object: JSONObject = ["kind": "fetch", "seq": .number(fetch.sequenceNumber)]
        var sections: [JSONValue] = []
        var binaries: [JSONValue] = []
        var binarySizes: [JSONValue] = []
        var unknown: [JSONValue] = []
        var uid: JSONValue?, flags: JSONValue?, internalDate: JSONValue?, size: JSONValue?, modseq: JSONValue?
        var envelope: JSONValue?, structure: BodyStructure?, preview: JSONValue?
        var rfc822: JSONValue?, rfc822Header: JSONValue?, rfc822Text: JSONValue?
        var gmailMessageID: JSONValue?, gmailThreadID: JSONValue?, gmailLabels: JSONValue?
        for attribute in fetch.attributes {
            switch attribute {
            case .uid(let value): uid = .number(value)
            case .flags(let value): flags = json(value)
            case .internalDate(let value): internalDate = .string(iso8601(value))
            case .rfc822Size(let value): size = .number(value)
            case .envelope(let value): envelope = .object(envelopeObject(value))
            case .body(let value), .bodyStructure(let value): structure = value
            case .bodySection(let section, let origin, let data):
                var description = section.description
                if description.hasPrefix("[") && description.hasSuffix("]") {
                    description = String(description.dropFirst().dropLast())
                }
                sections.append(
                    ["section": .string(description), "origin": .number(origin), "bytes": byteCount(data)])
            case .binary(let part, let origin, let data):
                binaries.append(["part": .string(partName(part)), "origin": .number(origin), "bytes": byteCount(data)])
            case .binarySize(let part, let value):
                binarySizes.append(["part": .string(partName(part)), "size": .number(value)])
            case .rfc822(let data): rfc822 = byteCount(data)
            case .rfc822Header(let data): rfc822Header = byteCount(data)
            case .rfc822Text(let data): rfc822Text = byteCount(data)
            case .preview(let data): preview = .string(data?.string)
            case .modificationSequence(let value): modseq = .number(value)
            case .gmailMessageID(let value): gmailMessageID = .number(value)
            case .gmailThreadID(let value): gmailThreadID = .number(value)
            case .gmailLabels(let labels): gmailLabels = .array(labels.map { .string($0.string) })
            case .unknown(let name, _): unknown.append(.string(name))
            }
        }
        func add(_ key: String, _ value: JSONValue?) {
            if let value { object.append(key, value) }
        }
        add("uid", uid)
        add("flags", flags)
        add("internalDate", internalDate)
        add("size", size)
        add("modseq", modseq)
        add("envelope", envelope)
        if let structure {
            object.append("structure", .string(structureSummary(structure)))
            object.append("hasAttachment", .bool(structure.hasAttachment))
        }
        if !sections.isEmpty { object.append("sections", .array(sections)) }
        if !binaries.isEmpty { object.append("binary", .array(binaries)) }
        if !binarySizes.isEmpty { object.append("binarySize", .array(binarySizes)) }
        add("rfc822", rfc822)
        add("rfc822Header", rfc822Header)
        add("rfc822Text", rfc822Text)
        add("preview", preview)
        add("gmailMessageId", gmailMessageID)
        add("gmailThreadId", gmailThreadID)
        add("gmailLabels", gmailLabels)
        if !unknown.isEmpty { object.append("unknown", .array(unknown)) }
        return object
    }

    private static func byteCount(_ data: ByteString?) -> JSONValue { data.map { .number(UInt64($0.count)) } ?? .null }

    private static func partName(_ part: [UInt32]) -> String { part.map(String.init).joined(separator: ".") }

    /// The envelope with names and subject decoded (RFC 2047) and addresses as `a@b`.
    public static func envelopeObject(_ envelope: Envelope) -> JSONObject {
        [
            "date": .string(envelope.date?.string),
            "subject": .string(envelope.subject.map { HeaderText.decode($0.string) }),
            "from": json(envelope.from), "sender": json(envelope.sender), "replyTo": json(envelope.replyTo),
            "to": json(envelope.to), "cc": json(envelope.cc), "bcc": json(envelope.bcc),
            "inReplyTo": .string(envelope.inReplyTo?.string), "messageId": .string(envelope.messageID?.string),
        ]
    }

    /// `{"name":..., "address":"a@b"}`; RFC 3501 group markers become `{"group":"name"}` and
    /// `{"groupEnd":true}`.
    private static func json(_ addresses: [Address]) -> JSONValue {
        .array(
            addresses.map { address -> JSONValue in
                if address.host == nil {
                    guard let group = address.mailbox else { return ["groupEnd": true] }
                    return ["group": .string(HeaderText.decode(group.string))]
                }
                return [
                    "name": .string(address.name.map { HeaderText.decode($0.string) }),
                    "address": .string(address.emailAddress),
                ]
            })
    }

    /// `multipart/alternative(text/plain,text/html)`; a message/rfc822 part shows the inner
    /// structure in parentheses too, and a part that did not parse is `invalid`.
    public static func structureSummary(_ structure: BodyStructure) -> String {
        switch structure {
        case .invalid: return "invalid"
        case .multipart(let multipart):
            return "multipart/\(multipart.mediaSubtype.string.lowercased())("
                + multipart.parts.map(structureSummary).joined(separator: ",") + ")"
        case .singlepart(let part):
            let type = "\(part.mediaType.string.lowercased())/\(part.mediaSubtype.string.lowercased())"
            if case .message(_, let inner, _) = part.kind { return "\(type)(\(structureSummary(inner)))" }
            return type
        }
    }

    /// `2023-12-01T00:13:23Z`: the moment in UTC.
    public static func iso8601(_ dateTime: IMAPDateTime) -> String {
        let seconds = dateTime.secondsSinceEpoch
        let days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400)
        let secondOfDay = seconds - days * 86400
        let date = IMAPDate(daysSinceEpoch: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T"
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
