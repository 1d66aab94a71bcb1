public import FoundationEssentials
public import IMAPCore

/// What a list shows of a message apart from its flags: the part of an ``Email`` that never
/// changes while the mailbox keeps its UIDVALIDITY (RFC 9051 2.3.1.1: a UID names one message
/// for good, and its envelope, size, structure, received date and text never change), so it can
/// be kept between runs (in the index: ``MessageIndex/keepListed(_:in:uidValidity:)``) and shown
/// again with fresh flags.
public struct CachedMessage: Hashable, Sendable {
    /// The message's UID.
    public var uid: UInt32
    /// The sender (as ``Email/from``).
    public var from: Email.Person
    /// The To recipients.
    public var to: [Email.Person]
    /// The Cc recipients.
    public var cc: [Email.Person]
    /// The decoded subject.
    public var subject: String
    /// The Date header, or the received date without one (as ``Email/date``).
    public var date: Date
    /// The start of the text.
    public var preview: String
    /// Whether a part is an attachment.
    public var hasAttachment: Bool
    /// RFC822.SIZE, in bytes.
    public var size: Int

    /// The unchanging part of `email`.
    public init(_ email: Email) {
        uid = email.id.uid
        from = email.from
        to = email.to
        cc = email.cc
        subject = email.subject
        date = email.date
        preview = email.preview
        hasAttachment = email.hasAttachment
        size = email.size
    }

    /// The email in `mailbox` (of `uidValidity`) with `flags` as the server has them now.
    public func email(mailbox: String, uidValidity: UInt32, flags: [Flag], pinFlag: Flag) -> Email {
        Email(
            id: Email.ID(mailbox: mailbox, uidValidity: uidValidity, uid: uid), from: from, to: to, cc: cc,
            subject: subject, date: date, preview: preview, flags: flags, pinFlag: pinFlag,
            hasAttachment: hasAttachment, size: size)
    }

    // MARK: - Stored form

    /// The version byte that starts ``encoded()``: a stored message of another version is not read.
    static let formatVersion: UInt8 = 1

    /// The stored form: a version byte, then each field (unsigned LEB128 numbers, the date as
    /// the 8 bytes of its `Double`, strings as a length and UTF-8, a person as a name marker, the
    /// name and the address).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.formatVersion]
        bytes.reserveCapacity(64 + subject.utf8.count + preview.utf8.count)
        func number(_ value: UInt64) {
            var value = value
            repeat {
                let low = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value == 0 ? low : low | 0x80)
            } while value != 0
        }
        func text(_ string: String) {
            number(UInt64(string.utf8.count))
            bytes.append(contentsOf: string.utf8)
        }
        func person(_ person: Email.Person) {
            if let name = person.name {
                bytes.append(1)
                text(name)
            } else {
                bytes.append(0)
            }
            text(person.address)
        }
        func people(_ list: [Email.Person]) {
            number(UInt64(list.count))
            list.forEach(person)
        }
        person(from)
        people(to)
        people(cc)
        text(subject)
        withUnsafeBytes(of: date.timeIntervalSince1970.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        text(preview)
        bytes.append(hasAttachment ? 1 : 0)
        number(UInt64(max(size, 0)))
        return bytes
    }

    /// The message `uid` stored as `bytes` by ``encoded()``; nil for bytes of another version,
    /// cut short, or with anything left over.
    public init?(uid: UInt32, decoding bytes: some Collection<UInt8>) {
        var reader = Reader(bytes: Array(bytes))
        guard reader.byte() == Self.formatVersion, let from = reader.person(), let to = reader.people(),
            let cc = reader.people(), let subject = reader.text(), let bits = reader.fixed64(),
            let preview = reader.text(), let attachment = reader.byte(), attachment <= 1,
            let size = reader.number(), size <= UInt64(Int.max), reader.isAtEnd
        else { return nil }
        self.uid = uid
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.date = Date(timeIntervalSince1970: Double(bitPattern: bits))
        self.preview = preview
        self.hasAttachment = attachment == 1
        self.size = Int(size)
    }

    /// Reads ``encoded()`` bytes, checking every length against what is left.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func number() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func fixed64() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += 8
            return value
        }

        mutating func text() -> String? {
            guard let length = number(), length <= UInt64(bytes.count - offset) else { return nil }
            let end = offset + Int(length)
            guard let string = String(validating: bytes[offset..<end], as: UTF8.self) else { return nil }
            offset = end
            return string
        }

        mutating func person() -> Email.Person? {
            guard let marker = byte(), marker <= 1 else { return nil }
            let name: String?
            if marker == 1 {
                guard let text = text() else { return nil }
                name = text
            } else {
                name = nil
            }
            guard let address = text() else { return nil }
            return Email.Person(name: name, address: address)
        }

        mutating func people() -> [Email.Person]? {
            // Each person takes at least two bytes, so a count beyond that is a broken record.
            guard let count = number(), count <= UInt64(bytes.count - offset) / 2 else { return nil }
            var list: [Email.Person] = []
            list.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let person = person() else { return nil }
                list.append(person)
            }
            return list
        }
    }
}
