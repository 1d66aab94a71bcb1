/// Addresses and names seen in one account's mail, with how often, for `from:`/`to:` suggestions.
public struct PeopleIndex: Hashable, Sendable {
    private var counts: [String: Int]

    /// An empty index.
    public init() { counts = [:] }

    /// An index from ready counts (`["alice@example.com": 12, "Alice Smith": 12]`).
    public init(frequencies: [String: Int]) { counts = frequencies.filter { !$0.key.isEmpty && $0.value > 0 } }

    /// Counts one message from or to `address`, and its display `name` when there is one.
    public mutating func add(address: String, name: String? = nil) {
        let address = SearchHistory.normalized(address)
        if !address.isEmpty { counts[address, default: 0] += 1 }
        if let name = name.map(SearchHistory.normalized), !name.isEmpty { counts[name, default: 0] += 1 }
    }

    /// How often `person` was seen.
    public func frequency(of person: String) -> Int { counts[person] ?? 0 }

    /// The people whose address or name, or a word of it, starts with `prefix` (ignoring case),
    /// most frequent first, then alphabetically.
    public func matching(_ prefix: String) -> [String] {
        let folded = prefix.lowercased()
        return counts.keys
            .filter { person in
                let lowered = person.lowercased()
                return lowered.hasPrefix(folded)
                    || lowered.split(whereSeparator: { $0 == " " || $0 == "." || $0 == "@" })
                        .contains { $0.hasPrefix(folded) }
            }
            .sorted { lhs, rhs in
                let (left, right) = (counts[lhs] ?? 0, counts[rhs] ?? 0)
                return left != right ? left > right : lhs < rhs
            }
    }
}
