public import FoundationEssentials
public import IMAPCore
import Transport

/// Where seeded messages come from.
///
/// Files may use LF or CRLF line ends; messages are stored with CRLF, as IMAP sends them.
public enum SeedSource: Sendable {
    /// One message's RFC 5322 bytes, with flags, a received date (default: its Date header, else
    /// now) and a UID (default: the mailbox's UIDNEXT; must be above every UID used).
    case raw([UInt8], flags: [Flag] = [], internalDate: IMAPDateTime? = nil, uid: UInt32? = nil)
    /// One message built from fields (``MessageBuilder``), with flags, a received date (default:
    /// the builder's date, else now) and a UID (default: the mailbox's UIDNEXT).
    case message(MessageBuilder, flags: [Flag] = [], internalDate: IMAPDateTime? = nil, uid: UInt32? = nil)
    /// Several built messages, oldest first, each without flags.
    case messages([MessageBuilder])
    /// A directory of `.eml` files: either `user/mailbox/*.eml` (when it has a directory named
    /// after the user), or `*.eml` for the given mailbox plus `Name/*.eml` for mailbox `Name`
    /// (nested directories are nested mailboxes). Files in name order; received date from the
    /// Date header, else the file's modification time.
    case emlDirectory(URL)
    /// An mbox file (mboxrd or mboxo; `>From ` unescaped); received date from the `From ` line;
    /// flags from `Status:` (R = `\Seen`) and `X-Status:` (A F D T = `\Answered` `\Flagged`
    /// `\Deleted` `\Draft`).
    case mbox(URL)
    /// A Maildir (`cur/` and `new/`): flags from the `:2,` suffix (D F P R S T, and a-z through
    /// `dovecot-keywords`), received date from the file's modification time, messages in `new/`
    /// recent. Maildir++ folders (`.Sent`, `.Lists.swift`) become mailboxes (`Sent`, `Lists/swift`).
    case maildir(URL)
    /// A JSON file: users, mailboxes (UIDVALIDITY, special use) and messages, raw or described
    /// by fields (from, to, subject, date, text, html, attachments), with flags, dates and UIDs.
    /// `MockServer/README.md` shows the shape.
    case json(URL)
    /// JSON text in the shape of `.json`.
    case jsonData(Data)
}

/// Where a seeded message went.
public struct SeededMessage: Hashable, Sendable {
    /// The user.
    public let user: String
    /// The mailbox (as people see the name).
    public let mailbox: String
    /// The UID it got.
    public let uid: UInt32

    /// A seeded message's place.
    public init(user: String, mailbox: String, uid: UInt32) {
        self.user = user
        self.mailbox = mailbox
        self.uid = uid
    }
}

/// A message read from a seed, before it is stored.
struct SeedMessage {
    var user: String
    var mailbox: String
    var bytes: [UInt8]
    var flags: [Flag] = []
    var internalDate: IMAPDateTime?
    var uid: UInt32?
    var isRecent = true
}

extension MailStore {
    /// Adds messages from `source`; mailboxes they name are created when missing. Returns where
    /// each message went, in order.
    ///
    /// ```swift
    /// try server.store.seed(user: "alice", mailbox: "INBOX", from: .maildir(url))
    /// ```
    @discardableResult
    public func seed(
        user: String, mailbox: String = "INBOX", from source: SeedSource
    ) throws(MockServerError)
        -> [SeededMessage]
    {
        guard credentials(of: user) != nil else { throw Self.unknownUser(user) }
        let messages: [SeedMessage]
        switch source {
        case .raw(let bytes, let flags, let internalDate, let uid):
            messages = [
                SeedMessage(
                    user: user, mailbox: mailbox, bytes: bytes, flags: flags, internalDate: internalDate, uid: uid)
            ]
        case .message(let built, let flags, let internalDate, let uid):
            messages = [
                SeedMessage(
                    user: user, mailbox: mailbox, bytes: built.bytes(), flags: flags, internalDate: internalDate,
                    uid: uid)
            ]
        case .messages(let built):
            messages = built.map { SeedMessage(user: user, mailbox: mailbox, bytes: $0.bytes()) }
        case .emlDirectory(let url):
            messages = try EmlDirectoryReader.read(url, user: user, mailbox: mailbox)
        case .mbox(let url):
            messages = try MboxReader.read(try Self.contents(of: url)).map {
                var message = $0
                message.user = user
                message.mailbox = mailbox
                return message
            }
        case .maildir(let url):
            messages = try MaildirReader.read(url, user: user, mailbox: mailbox)
        case .json(let url):
            messages = try JSONSeed.read(try Self.contents(of: url), into: self, user: user, mailbox: mailbox)
        case .jsonData(let data):
            messages = try JSONSeed.read([UInt8](data), into: self, user: user, mailbox: mailbox)
        }
        return try store(messages)
    }

    /// Stores read messages in order, creating missing mailboxes.
    func store(_ messages: [SeedMessage]) throws(MockServerError) -> [SeededMessage] {
        var seeded: [SeededMessage] = []
        seeded.reserveCapacity(messages.count)
        for message in messages {
            let wire = Self.wireName(message.mailbox)
            if snapshot(user: message.user, mailbox: wire)?.isSelectable != true {
                try createMailbox(wireName: wire, user: message.user)
            }
            let indexed = IndexedMessage(bytes: Self.crlf(message.bytes))
            let date = message.internalDate ?? indexed.defaultInternalDate
            let uid = try update(user: message.user, mailbox: wire) { (record) throws(MockServerError) -> UInt32 in
                let uid = try record.append(indexed, flags: message.flags, internalDate: date, uid: message.uid)
                if !message.isRecent, let index = record.index(ofUID: uid) { record.messages[index].isRecent = false }
                return uid
            }
            seeded.append(SeededMessage(user: message.user, mailbox: message.mailbox, uid: uid))
        }
        return seeded
    }

    /// The bytes of a file.
    static func contents(of url: URL) throws(MockServerError) -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: url))
        } catch {
            throw MockServerError(.invalidSeed, "cannot read \(url.path): \(failureReason(error))")
        }
    }

    /// `bytes` with every bare LF turned into CRLF.
    static func crlf(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "\n")) else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 40)
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "\n") && previous != UInt8(ascii: "\r") { result.append(UInt8(ascii: "\r")) }
            result.append(byte)
            previous = byte
        }
        return result
    }
}

/// Reads `.eml` directories.
enum EmlDirectoryReader {
    static func read(_ url: URL, user: String, mailbox: String) throws(MockServerError) -> [SeedMessage] {
        let files = FileManager.default
        var isDirectory = false
        guard files.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory else {
            throw MockServerError(.invalidSeed, "\(url.path) is not a directory of .eml files")
        }
        var userDirectory = false
        if files.fileExists(atPath: url.appendingPathComponent(user).path, isDirectory: &userDirectory), userDirectory {
            // user/mailbox/*.eml
            return try readTree(url.appendingPathComponent(user), user: user, mailbox: nil)
        }
        return try readTree(url, user: user, mailbox: mailbox)
    }

    /// The `.eml` files of `directory` into `mailbox` (nil: none at this level), and each
    /// subdirectory into a mailbox of its path.
    private static func readTree(
        _ directory: URL, user: String, mailbox: String?, prefix: String = ""
    )
        throws(MockServerError) -> [SeedMessage]
    {
        let files = FileManager.default
        let entries: [URL]
        do {
            entries = try files.contentsOfDirectory(atPath: directory.path)
                .sorted { naturallyOrdered($0, $1) }
                .map { directory.appendingPathComponent($0) }
        } catch {
            throw MockServerError(.invalidSeed, "cannot list \(directory.path): \(failureReason(error))")
        }
        var messages: [SeedMessage] = []
        for entry in entries where entry.pathExtension.lowercased() == "eml" {
            guard let mailbox else { continue }
            let bytes = try MailStore.contents(of: entry)
            var message = SeedMessage(user: user, mailbox: mailbox, bytes: bytes)
            if IndexedMessage(bytes: MailStore.crlf(bytes)).sentTimestamp == nil,
                let modified = try? files.attributesOfItem(atPath: entry.path)[.modificationDate] as? Date
            {
                message.internalDate = IMAPDateTime(secondsSinceEpoch: Int(modified.timeIntervalSince1970))
            }
            messages.append(message)
        }
        for entry in entries {
            var isDirectory = false
            guard files.fileExists(atPath: entry.path, isDirectory: &isDirectory), isDirectory else { continue }
            let name = prefix + entry.lastPathComponent
            messages += try readTree(entry, user: user, mailbox: name, prefix: name + "/")
        }
        return messages
    }
}

/// Whether `first` comes before `second` in the order a file manager shows names: runs of digits
/// by their value (`2.eml` before `10.eml`), everything else without regard to case.
func naturallyOrdered(_ first: String, _ second: String) -> Bool {
    var left = Array(first.unicodeScalars)[...]
    var right = Array(second.unicodeScalars)[...]
    func digits(_ scalars: inout ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
        let run = scalars.prefix { ("0"..."9").contains($0) }
        scalars.removeFirst(run.count)
        return run.drop { $0 == "0" }
    }
    while let a = left.first, let b = right.first {
        if ("0"..."9").contains(a) && ("0"..."9").contains(b) {
            let leftRun = digits(&left)
            let rightRun = digits(&right)
            if leftRun.count != rightRun.count { return leftRun.count < rightRun.count }
            if let (x, y) = zip(leftRun, rightRun).first(where: { $0 != $1 }) { return x.value < y.value }
            continue
        }
        let x = a.properties.lowercaseMapping
        let y = b.properties.lowercaseMapping
        if x != y { return x < y }
        left.removeFirst()
        right.removeFirst()
    }
    if left.isEmpty != right.isEmpty { return left.isEmpty }
    return first < second
}

/// Reads mbox files.
enum MboxReader {
    static func read(_ bytes: [UInt8]) throws(MockServerError) -> [SeedMessage] {
        var messages: [SeedMessage] = []
        var current: [[UInt8]] = []
        var currentDate: IMAPDateTime?
        var started = false
        var previousBlank = true

        func finish() {
            guard started else { return }
            while let last = current.last, last.isEmpty || last == [UInt8(ascii: "\r")] { current.removeLast() }
            var body: [UInt8] = []
            for line in current {
                body += line
                body.append(UInt8(ascii: "\n"))
            }
            var message = SeedMessage(user: "", mailbox: "", bytes: body, internalDate: currentDate)
            message.flags = flags(of: current)
            messages.append(message)
        }

        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            var line = Array(bytes[lineStart..<lineEnd])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            lineStart = lineEnd + 1
            if previousBlank && line.starts(with: Array("From ".utf8)) {
                finish()
                started = true
                current = []
                currentDate = date(fromLine: line)
                previousBlank = false
                continue
            }
            previousBlank = line.isEmpty
            guard started else {
                if !line.isEmpty {
                    throw MockServerError(
                        .invalidSeed, "this is not an mbox file: it does not start with a \"From \" line")
                }
                continue
            }
            // mboxrd: ">From " and ">>From " lose one ">".
            if line.first == UInt8(ascii: ">") {
                let rest = line.drop { $0 == UInt8(ascii: ">") }
                if rest.starts(with: Array("From ".utf8)) { line.removeFirst() }
            }
            current.append(line)
        }
        finish()
        return messages
    }

    /// The received date of a `From sender Sat Jan  3 01:05:34 1996` line (UTC), if it has one.
    static func date(fromLine line: [UInt8]) -> IMAPDateTime? {
        let words = String(decoding: line, as: UTF8.self).split(separator: " ").map(String.init)
        // From sender Www Mmm dd hh:mm:ss yyyy
        guard words.count >= 7 else { return nil }
        let tail = Array(words.suffix(5))
        guard let month = IMAPDate.monthNames.firstIndex(of: tail[1]), let day = Int(tail[2]),
            let year = Int(tail[4]), let date = IMAPDate(year: year, month: month + 1, day: day)
        else { return nil }
        let time = tail[3].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        return IMAPDateTime(date: date, hour: time[0], minute: time[1], second: time[2], zoneMinutes: 0)
    }

    /// Flags from the Status and X-Status headers some mail programs write into mboxes.
    static func flags(of lines: [[UInt8]]) -> [Flag] {
        var flags: [Flag] = []
        for line in lines {
            if line.isEmpty { break }
            let text = String(decoding: line, as: UTF8.self)
            let lowered = text.lowercased()
            if lowered.hasPrefix("status:") {
                if text.dropFirst(7).contains("R") { flags.append(.seen) }
            } else if lowered.hasPrefix("x-status:") {
                let value = text.dropFirst(9)
                if value.contains("A") { flags.append(.answered) }
                if value.contains("F") { flags.append(.flagged) }
                if value.contains("D") { flags.append(.deleted) }
                if value.contains("T") { flags.append(.draft) }
            }
        }
        return flags
    }
}

/// Reads Maildirs.
enum MaildirReader {
    static func read(_ url: URL, user: String, mailbox: String) throws(MockServerError) -> [SeedMessage] {
        let files = FileManager.default
        guard
            files.fileExists(atPath: url.appendingPathComponent("cur").path)
                || files.fileExists(atPath: url.appendingPathComponent("new").path)
        else {
            throw MockServerError(.invalidSeed, "\(url.path) is not a Maildir (it has no cur/ or new/)")
        }
        var messages = try readFolder(url, user: user, mailbox: mailbox)
        let folders = ((try? files.contentsOfDirectory(atPath: url.path)) ?? []).filter {
            $0.hasPrefix(".") && $0 != "." && $0 != ".."
                && files.fileExists(atPath: url.appendingPathComponent($0).appendingPathComponent("cur").path)
        }.sorted()
        for folder in folders {
            let name = String(folder.dropFirst()).replacing(".", with: "/")
            messages += try readFolder(url.appendingPathComponent(folder), user: user, mailbox: name)
        }
        return messages
    }

    private static func readFolder(
        _ url: URL, user: String, mailbox: String
    ) throws(MockServerError)
        -> [SeedMessage]
    {
        let keywords = keywordNames(url.appendingPathComponent("dovecot-keywords"))
        var found: [(sortKey: (Int, String), message: SeedMessage)] = []
        for subdirectory in ["cur", "new"] {
            let directory = url.appendingPathComponent(subdirectory)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
            for name in names where !name.hasPrefix(".") {
                let file = directory.appendingPathComponent(name)
                var message = SeedMessage(user: user, mailbox: mailbox, bytes: try MailStore.contents(of: file))
                message.flags = flags(fromName: name, keywords: keywords)
                message.isRecent = subdirectory == "new"
                let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
                if let modified = attributes?[.modificationDate] as? Date {
                    message.internalDate = IMAPDateTime(secondsSinceEpoch: Int(modified.timeIntervalSince1970))
                }
                let timestamp = Int(name.prefix { $0.isNumber }) ?? 0
                found.append(((timestamp, name), message))
            }
        }
        return found.sorted { $0.sortKey < $1.sortKey }.map(\.message)
    }

    /// Flags of a `name:2,FLAGS` file name.
    static func flags(fromName name: String, keywords: [Int: String]) -> [Flag] {
        guard let range = name.firstRange(of: ":2,") else { return [] }
        var flags: [Flag] = []
        for character in name[range.upperBound...] {
            switch character {
            case "D": flags.append(.draft)
            case "F": flags.append(.flagged)
            case "P": flags.append(Flag("$Forwarded"))
            case "R": flags.append(.answered)
            case "S": flags.append(.seen)
            case "T": flags.append(.deleted)
            default:
                if let ascii = character.asciiValue, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(ascii),
                    let keyword = keywords[Int(ascii - UInt8(ascii: "a"))]
                {
                    flags.append(Flag(keyword))
                }
            }
        }
        return flags
    }

    /// Dovecot's `dovecot-keywords`: lines `0 $Pinned`.
    private static func keywordNames(_ url: URL) -> [Int: String] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        var names: [Int: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let index = Int(parts[0]) { names[index] = String(parts[1]) }
        }
        return names
    }
}
