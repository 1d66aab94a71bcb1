import FoundationEssentials
import JSONText
import MailSearch

/// An email as one line of `--json` (docs/cli.md, "Output"): every key always present, in this
/// order: uid, mailbox, from, to, subject, date, preview, read, pinned, flags, hasAttachment, size.
///
/// ```json
/// {"uid":123,"mailbox":"INBOX","from":{"name":"Grace Jones","address":"grace.jones@apple.com"},
///  "to":[{"name":"Alice Example","address":"alice@example.com"}],"subject":"Invoice #1364",
///  "date":"2023-12-01T00:22:30Z","preview":"quarterly calendar ...","read":true,"pinned":false,
///  "flags":["\\Seen"],"hasAttachment":false,"size":3761}
/// ```
enum EmailJSON {
    /// The object for `email`.
    static func object(_ email: Email) -> JSONObject {
        var object = JSONObject()
        object.append("uid", .number(email.uid))
        object.append("mailbox", .string(email.mailbox))
        object.append("from", person(email.from))
        object.append("to", .array(email.to.map(person)))
        object.append("subject", .string(email.subject))
        object.append("date", .string(timestamp(email.date)))
        object.append("preview", .string(email.preview))
        object.append("read", .bool(email.isRead))
        object.append("pinned", .bool(email.isPinned))
        object.append("flags", .array(email.flags.map { .string($0.description) }))
        object.append("hasAttachment", .bool(email.hasAttachment))
        object.append("size", .integer(Int64(email.size)))
        return object
    }

    /// `{"name":...,"address":...}`; the name is null when there is none.
    static func person(_ person: Email.Person) -> JSONValue {
        let name = person.name.flatMap { $0.isEmpty ? nil : $0 }
        return .object(["name": .string(name), "address": .string(person.address)])
    }

    /// `2023-12-01T00:22:30Z`: the moment in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendTimestamp(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``timestamp(_:)``'s bytes, appended digit by digit (a listing writes one per message; no
    /// character of it needs escaping in JSON).
    static func appendTimestamp(_ date: Date, to bytes: inout [UInt8]) {
        let time = CivilTime(date)
        // `number` in decimal, zeros in front up to `digits` characters (as String(number) padded).
        func pad(_ number: Int, _ digits: Int) {
            let magnitude = number.magnitude
            var divisor: UInt = 1
            var length = number < 0 ? 2 : 1
            while magnitude / divisor >= 10 {
                divisor *= 10
                length += 1
            }
            for _ in length..<max(digits, length) { bytes.append(UInt8(ascii: "0")) }
            if number < 0 { bytes.append(UInt8(ascii: "-")) }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
                divisor /= 10
            }
        }
        pad(time.year, 4)
        bytes.append(UInt8(ascii: "-"))
        pad(time.month, 2)
        bytes.append(UInt8(ascii: "-"))
        pad(time.day, 2)
        bytes.append(UInt8(ascii: "T"))
        pad(time.hour, 2)
        bytes.append(UInt8(ascii: ":"))
        pad(time.minute, 2)
        bytes.append(UInt8(ascii: ":"))
        pad(time.second, 2)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Every email as a line.
    static func lines(_ emails: [Email]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(emails.count * 512)
        for email in emails { appendLine(email, to: &bytes) }
        return bytes
    }

    /// Appends the line of `email`: the bytes `JSONWriter` writes for ``object(_:)`` and a
    /// newline, written straight from the email (a listing of thousands builds no JSONValue
    /// trees).
    static func appendLine(_ email: Email, to bytes: inout [UInt8]) {
        func key(_ name: StaticString) {
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        func person(_ person: Email.Person) {
            key(#"{"name":"#)
            if let name = person.name, !name.isEmpty {
                JSONWriter.writeString(name, into: &bytes)
            } else {
                key("null")
            }
            key(#","address":"#)
            JSONWriter.writeString(person.address, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        key(#"{"uid":"#)
        JSONWriter.writeInteger(Int64(email.uid), into: &bytes)
        key(#","mailbox":"#)
        JSONWriter.writeString(email.mailbox, into: &bytes)
        key(#","from":"#)
        person(email.from)
        key(#","to":["#)
        for (position, recipient) in email.to.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            person(recipient)
        }
        key(#"],"subject":"#)
        JSONWriter.writeString(email.subject, into: &bytes)
        key(#","date":"#)
        bytes.append(UInt8(ascii: "\""))
        appendTimestamp(email.date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        key(#","preview":"#)
        JSONWriter.writeString(email.preview, into: &bytes)
        key(email.isRead ? #","read":true,"pinned":"# : #","read":false,"pinned":"#)
        key(email.isPinned ? #"true,"flags":["# : #"false,"flags":["#)
        for (position, flag) in email.flags.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(flag.description, into: &bytes)
        }
        key(email.hasAttachment ? #"],"hasAttachment":true,"size":"# : #"],"hasAttachment":false,"size":"#)
        JSONWriter.writeInteger(Int64(email.size), into: &bytes)
        key("}\n")
    }
}
