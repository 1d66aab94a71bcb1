import FoundationEssentials
import JSONText
import MailSearch
import SystemLayer

/// The addresses and names seen in each account's mail, for `suggest from:...`: kept beside the
/// search history in `$XDG_STATE_HOME/mailsearch/people.json` (mode 0600), counted once per
/// message (the messages already counted are remembered, the most recent `seenCapacity`).
///
/// ```json
/// {"version":1,"accounts":{"demo":{"people":{"albus.dumbledore@hogwarts.example":2,"Albus Dumbledore":2},
///                                   "seen":["INBOX/1700000000/12", ...]}}}
/// ```
struct PeopleStore {
    static let fileName = "people.json"
    /// How many people are kept per account (the most frequent).
    static let capacity = 2000
    /// How many message identities are remembered per account, so a message shown again is not
    /// counted again.
    static let seenCapacity = 10_000

    fileprivate struct File: Sendable {
        var version = 1
        var accounts: [String: Account] = [:]
    }

    fileprivate struct Account: Sendable {
        var people: [String: Int] = [:]
        var seen: [String] = []
    }

    /// The file as read at one moment, and how it looked on disk then: read while a command
    /// waits for the server, so that recording afterwards (when the output is already out and
    /// the process waits for it to exit) does not decode the file again unless it changed.
    struct Snapshot: Sendable {
        fileprivate let file: File
        /// Device, inode, size and modification time; nil when there was no file.
        fileprivate let stamp: FileStamp?
    }

    /// The directory of the file (the search history's).
    let directory: URL

    private var path: String { directory.appendingPathComponent(Self.fileName).path }

    /// The index of `account`; empty when the file is missing or unreadable.
    func index(account: String) -> PeopleIndex {
        PeopleIndex(frequencies: load().accounts[account]?.people ?? [:])
    }

    /// The file as it is now (read and decoded).
    func snapshot() -> Snapshot {
        let stamp = currentStamp()
        return Snapshot(file: load(), stamp: stamp)
    }

    /// Counts the senders and recipients of `emails` not counted before. With `snapshot`, its
    /// contents are used when the file is still the one it was read from (another process may
    /// have replaced it meanwhile: then the file is read again).
    func record(_ emails: [Email], account: String, startingFrom snapshot: Snapshot? = nil) throws(CommandFailure) {
        var file = snapshot.flatMap { $0.stamp == currentStamp() ? $0.file : nil } ?? load()
        var entry = file.accounts[account] ?? Account()
        var seen = Set(entry.seen)
        var changed = false
        for email in emails where seen.insert(email.id.description).inserted {
            entry.seen.append(email.id.description)
            changed = true
            for person in [email.from] + email.to {
                let address = SearchHistory.normalized(person.address)
                if !address.isEmpty { entry.people[address, default: 0] += 1 }
                if let name = person.name.map(SearchHistory.normalized), !name.isEmpty {
                    entry.people[name, default: 0] += 1
                }
            }
        }
        guard changed else { return }
        if entry.seen.count > Self.seenCapacity { entry.seen.removeFirst(entry.seen.count - Self.seenCapacity) }
        if entry.people.count > Self.capacity {
            let kept = entry.people.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .prefix(Self.capacity)
            entry.people = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        file.accounts[account] = entry
        do throws(PrivateFileError) {
            try PrivateFiles.writeAtomically(file.encoded(), to: path)
        } catch {
            throw CommandFailure("cannot keep the people seen: \(error)")
        }
    }

    private func currentStamp() -> FileStamp? { FileStamp(path: path) }

    /// The file; empty when it is missing, not privately ours (a link, another user's: it is
    /// then replaced by the next record, never read or written through) or not a people file.
    private func load() -> File {
        let bytes: [UInt8]?
        do throws(PrivateFileError) {
            bytes = try PrivateFiles.read(path)
        } catch {
            return File()
        }
        guard let bytes, let value = try? JSONReader.parse(bytes), let file = File(json: value), file.version == 1
        else { return File() }
        return file
    }
}

extension PeopleStore.File {
    /// The file from its JSON: every key of the format there with its type (other keys are
    /// ignored); nil when one is missing or of another type.
    fileprivate init?(json: JSONValue) {
        guard case .object(let root) = json, case .integer(let version)? = root["version"],
            case .object(let accounts)? = root["accounts"]
        else { return nil }
        self.version = Int(clamping: version)
        for member in accounts.members {
            guard let account = PeopleStore.Account(json: member.value) else { return nil }
            self.accounts[member.key] = account
        }
    }

    /// The JSON of the file, keys sorted (stable from one save to the next).
    fileprivate func encoded() -> [UInt8] {
        var accountsObject = JSONObject()
        for key in accounts.keys.sorted() {
            guard let account = accounts[key] else { continue }
            var people = JSONObject()
            for name in account.people.keys.sorted() { people.append(name, .integer(Int64(account.people[name] ?? 0))) }
            accountsObject.append(
                key, .object(["people": .object(people), "seen": .array(account.seen.map { .string($0) })]))
        }
        var bytes: [UInt8] = []
        JSONWriter.write(
            .object(["accounts": .object(accountsObject), "version": .integer(Int64(version))]), into: &bytes)
        return bytes
    }
}

extension PeopleStore.Account {
    fileprivate init?(json: JSONValue) {
        guard case .object(let object) = json, case .object(let people)? = object["people"],
            case .array(let seen)? = object["seen"]
        else { return nil }
        for member in people.members {
            guard case .integer(let count) = member.value else { return nil }
            self.people[member.key] = Int(clamping: count)
        }
        for element in seen {
            guard case .string(let identity) = element else { return nil }
            self.seen.append(identity)
        }
    }
}
