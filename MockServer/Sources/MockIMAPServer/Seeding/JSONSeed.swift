import IMAPCore
import JSONText
import MailMIME

/// The JSON seed format: users, mailboxes and messages, each message raw or described by fields.
///
/// ```json
/// {
///   "users": [ { "name": "bob", "password": "secret", "oauth2Token": "ya29.token" } ],
///   "mailboxes": [
///     { "name": "INBOX", "user": "bob", "uidValidity": 42, "specialUse": "\\Archive",
///       "messages": [
///         { "uid": 7, "flags": ["\\Seen", "$Pinned"], "internalDate": "2024-03-05T14:05:00Z",
///           "raw": "From: grace@apple.com\r\nSubject: Hi\r\n\r\nHello\r\n" },
///         { "from": "Grace Jones <grace@apple.com>", "to": ["alice@example.com"], "cc": [], "bcc": [],
///           "subject": "Invoice #1364", "date": "2024-03-05T14:05:00+01:00", "messageId": "<1@apple.com>",
///           "text": "Plain body", "html": "<p>HTML body</p>", "headers": { "X-Priority": "1" },
///           "attachments": [ { "filename": "invoice.pdf", "contentType": "application/pdf", "base64": "JVBERi0=" },
///                            { "filename": "notes.txt", "text": "some notes" } ] }
///       ] }
///   ],
///   "messages": [ ... ]
/// }
/// ```
/// Every key is optional. `users` are added (with the default mailboxes) when missing; a
/// mailbox's `user` defaults to the user given to `seed`, and top-level `messages` (or a
/// top-level array of messages) go to the mailbox given to `seed`. A message is `raw` text,
/// `rawBase64`, or fields; `to`, `cc`, `bcc` and `replyTo` take a string or an array. Dates are
/// ISO 8601 (`2024-03-05T14:05:00Z`, `...+01:00`, or a date alone) or IMAP date-times
/// (`05-Mar-2024 14:05:00 +0100`); `internalDate` defaults to `date`.
enum JSONSeed {
    static func read(
        _ bytes: [UInt8], into store: MailStore, user: String, mailbox: String
    ) throws(MockServerError)
        -> [SeedMessage]
    {
        let root: JSONValue
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw MockServerError(
                .invalidSeed, "the JSON seed is not valid JSON: \(error.reason) at byte \(error.offset)")
        }
        if let messages = root.arrayValue {
            return try messages.enumerated().map { (index, value) throws(MockServerError) in
                try message(value, user: user, mailbox: mailbox, path: "[\(index)]")
            }
        }
        guard let object = root.objectValue else {
            throw MockServerError(.invalidSeed, "the JSON seed must be an object or an array of messages")
        }
        for (index, value) in (object["users"]?.arrayValue ?? []).enumerated() {
            guard let entry = value.objectValue, let name = entry["name"]?.stringValue else {
                throw MockServerError(.invalidSeed, "users[\(index)] needs a \"name\"")
            }
            if store.credentials(of: name) == nil || entry["password"] != nil || entry["oauth2Token"] != nil {
                let existing = store.credentials(of: name)
                store.addUser(
                    MockIMAPServer.User(
                        name, password: entry["password"]?.stringValue ?? existing?.password,
                        oauth2Token: entry["oauth2Token"]?.stringValue ?? existing?.oauth2Token))
            }
        }
        var messages: [SeedMessage] = []
        for (index, value) in (object["mailboxes"]?.arrayValue ?? []).enumerated() {
            let path = "mailboxes[\(index)]"
            guard let entry = value.objectValue, let name = entry["name"]?.stringValue else {
                throw MockServerError(.invalidSeed, "\(path) needs a \"name\"")
            }
            let owner = entry["user"]?.stringValue ?? user
            guard store.credentials(of: owner) != nil else { throw MailStore.unknownUser(owner) }
            let wire = MailStore.wireName(name)
            var specialUse: SpecialUse?
            if let text = entry["specialUse"]?.stringValue {
                guard let value = SpecialUse(rawValue: text) else {
                    throw MockServerError(
                        .invalidSeed, "\(path).specialUse \(text) is not \\Sent, \\Drafts, \\Trash ...")
                }
                specialUse = value
            }
            let uidValidity = try uid(entry["uidValidity"], "\(path).uidValidity")
            if store.snapshot(user: owner, mailbox: wire)?.isSelectable != true {
                try store.createMailbox(wireName: wire, user: owner, specialUse: specialUse, uidValidity: uidValidity)
            } else if specialUse != nil || uidValidity != nil {
                try store.update(user: owner, mailbox: wire) { record in
                    if let specialUse { record.specialUse = specialUse }
                    if let uidValidity { record.uidValidity = uidValidity }
                }
            }
            if case .bool(let subscribed)? = entry["subscribed"] {
                try store.updateAccount(owner) { account, _ in
                    if subscribed { account.subscriptions.insert(wire) } else { account.subscriptions.remove(wire) }
                }
            }
            for (messageIndex, value) in (entry["messages"]?.arrayValue ?? []).enumerated() {
                messages.append(
                    try message(value, user: owner, mailbox: name, path: "\(path).messages[\(messageIndex)]"))
            }
        }
        for (index, value) in (object["messages"]?.arrayValue ?? []).enumerated() {
            messages.append(try message(value, user: user, mailbox: mailbox, path: "messages[\(index)]"))
        }
        return messages
    }

    private static func message(
        _ value: JSONValue, user: String, mailbox: String, path: String
    ) throws(MockServerError)
        -> SeedMessage
    {
        guard let entry = value.objectValue else {
            throw MockServerError(.invalidSeed, "\(path) must be an object")
        }
        var seed = SeedMessage(user: user, mailbox: mailbox, bytes: [])
        if let raw = entry["raw"]?.stringValue {
            seed.bytes = Array(raw.utf8)
        } else if let raw = entry["rawBase64"]?.stringValue {
            guard let bytes = Base64.decode(validating: Array(raw.utf8)) else {
                throw MockServerError(.invalidSeed, "\(path).rawBase64 is not valid base64")
            }
            seed.bytes = bytes
        } else {
            seed.bytes = try composed(entry, path: path).bytes()
        }
        if let flags = entry["flags"]?.stringArrayValue { seed.flags = flags.map { Flag($0) } }
        if let invalid = FlagValidation.firstInvalid(seed.flags) {
            throw MockServerError(.invalidSeed, "\(path).flags: \(invalid)")
        }
        if let uid = try uid(entry["uid"], "\(path).uid") { seed.uid = uid }
        if let text = entry["internalDate"]?.stringValue ?? entry["date"]?.stringValue {
            guard let date = parseDate(text) else {
                throw MockServerError(.invalidSeed, "\(path): \(text) is not an ISO 8601 or IMAP date")
            }
            seed.internalDate = IMAPDateTime(secondsSinceEpoch: date.seconds, zoneMinutes: date.zoneMinutes)
        }
        return seed
    }

    private static func composed(_ entry: JSONObject, path: String) throws(MockServerError) -> MessageBuilder {
        func list(_ key: String) -> [String] {
            if let one = entry[key]?.stringValue { return [one] }
            return entry[key]?.stringArrayValue ?? []
        }
        var message = MessageBuilder()
        message.from = entry["from"]?.stringValue
        message.to = list("to")
        message.cc = list("cc")
        message.bcc = list("bcc")
        message.replyTo = list("replyTo")
        message.subject = entry["subject"]?.stringValue
        if let text = entry["date"]?.stringValue {
            guard let date = parseDate(text) else {
                throw MockServerError(.invalidSeed, "\(path).date: \(text) is not an ISO 8601 or IMAP date")
            }
            message.date = IMAPDateTime(secondsSinceEpoch: date.seconds, zoneMinutes: date.zoneMinutes)
        }
        message.messageID = entry["messageId"]?.stringValue
        message.inReplyTo = entry["inReplyTo"]?.stringValue
        message.text = entry["text"]?.stringValue
        message.html = entry["html"]?.stringValue
        if let headers = entry["headers"]?.objectValue {
            message.extraHeaders = headers.members.sorted { $0.key < $1.key }.compactMap { member in
                member.value.stringValue.map { (member.key, $0) }
            }
        }
        for (index, value) in (entry["attachments"]?.arrayValue ?? []).enumerated() {
            guard let attachment = value.objectValue, let filename = attachment["filename"]?.stringValue else {
                throw MockServerError(.invalidSeed, "\(path).attachments[\(index)] needs a \"filename\"")
            }
            var data: [UInt8] = []
            if let base64 = attachment["base64"]?.stringValue {
                guard let decoded = Base64.decode(validating: Array(base64.utf8)) else {
                    throw MockServerError(.invalidSeed, "\(path).attachments[\(index)].base64 is not valid base64")
                }
                data = decoded
            } else if let text = attachment["text"]?.stringValue {
                data = Array(text.utf8)
            }
            let type =
                attachment["contentType"]?.stringValue
                ?? (attachment["text"] != nil ? "text/plain" : "application/octet-stream")
            message.attachments.append(MessageBuilder.Attachment(filename: filename, contentType: type, data: data))
        }
        return message
    }

    /// ISO 8601 (`2024-03-05`, `2024-03-05T14:05:00Z`, `2024-03-05T14:05:00.123+01:00`) or an IMAP
    /// date-time (`05-Mar-2024 14:05:00 +0100`): seconds since 1970 and the zone.
    static func parseDate(_ text: String) -> (seconds: Int, zoneMinutes: Int)? {
        if text.contains("-") && text.count >= 10, text.prefix(4).allSatisfy(\.isNumber) {
            let characters = Array(text)
            func number(_ range: Range<Int>) -> Int? {
                guard range.upperBound <= characters.count else { return nil }
                return Int(String(characters[range]))
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                let date = IMAPDate(year: year, month: month, day: day)
            else { return nil }
            var seconds = date.daysSinceEpoch * 86400
            guard characters.count > 10 else { return (seconds, 0) }
            guard characters[10] == "T" || characters[10] == " ", let hour = number(11..<13),
                let minute = number(14..<16), hour < 24, minute < 60
            else { return nil }
            var position = 16
            var second = 0
            if position < characters.count && characters[position] == ":" {
                guard let value = number(17..<19) else { return nil }
                second = value
                position = 19
            }
            if position < characters.count && characters[position] == "." {
                position += 1
                while position < characters.count && characters[position].isNumber { position += 1 }
            }
            var zone = 0
            if position < characters.count {
                let sign = characters[position]
                if sign == "Z" {
                    position += 1
                } else if sign == "+" || sign == "-" {
                    let digits = String(characters[(position + 1)...]).filter(\.isNumber)
                    guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
                        hours < 24, minutes < 60
                    else { return nil }
                    zone = (hours * 60 + minutes) * (sign == "-" ? -1 : 1)
                    position = characters.count
                } else {
                    return nil
                }
            }
            guard position == characters.count else { return nil }
            seconds += hour * 3600 + minute * 60 + second - zone * 60
            return (seconds, zone)
        }
        var cursor = ByteCursor(Array(("\"" + text + "\"").utf8))
        guard let dateTime = try? cursor.parseDateTime() else { return nil }
        return (dateTime.secondsSinceEpoch, dateTime.zoneMinutes)
    }

    /// A UID or UIDVALIDITY (1 to 4294967295) at `path`, nil when absent.
    private static func uid(_ value: JSONValue?, _ path: String) throws(MockServerError) -> UInt32? {
        switch value {
        case nil, .null?: return nil
        case .integer(let number)?: if let uid = UInt32(exactly: number), uid > 0 { return uid }
        default: break
        }
        throw MockServerError(.invalidSeed, "\(path) must be a whole number from 1 to 4294967295")
    }
}
