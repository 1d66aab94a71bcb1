import Foundation
import MailSearch

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

    private struct File: Codable {
        var version = 1
        var accounts: [String: Account] = [:]
    }

    private struct Account: Codable {
        var people: [String: Int] = [:]
        var seen: [String] = []
    }

    /// The directory of the file (the search history's).
    let directory: URL

    private var path: String { directory.appendingPathComponent(Self.fileName).path }

    /// The index of `account`; empty when the file is missing or unreadable.
    func index(account: String) -> PeopleIndex {
        PeopleIndex(frequencies: load().accounts[account]?.people ?? [:])
    }

    /// Counts the senders and recipients of `emails` not counted before.
    func record(_ emails: [Email], account: String) throws(CommandFailure) {
        var file = load()
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
        let bytes: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            bytes = Array(try encoder.encode(file))
        } catch {
            throw CommandFailure("cannot encode \(path): \(error)")
        }
        try AtomicFile.write(bytes, to: path)
    }

    private func load() -> File {
        guard let data = FileManager.default.contents(atPath: path),
            let file = try? JSONDecoder().decode(File.self, from: data), file.version == 1
        else { return File() }
        return file
    }
}
