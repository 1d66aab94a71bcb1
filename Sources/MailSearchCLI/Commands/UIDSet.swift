/// A UID argument: `12`, or a set such as `12,15:20` (no `*`: name the messages).
struct UIDSet: Hashable, Sendable {
    /// The numbers and ranges as given, each with its bounds in order.
    var ranges: [ClosedRange<UInt32>]

    /// The ranges.
    init(ranges: [ClosedRange<UInt32>]) { self.ranges = ranges }

    /// Parses the arguments (each may be a set); throws a usage error naming the bad part.
    init(arguments: [String]) throws(UsageError) {
        ranges = []
        for argument in arguments {
            for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
                let bounds = part.split(separator: ":", omittingEmptySubsequences: false)
                let numbers = bounds.map { UInt32($0) }
                guard (1...2).contains(bounds.count), numbers.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw UsageError(
                        "\"\(argument)\" is not a UID or UID set",
                        hint: "write UIDs as the list shows them, like 12 or 12,15:20")
                }
                let values = numbers.compactMap { $0 }
                ranges.append(min(values[0], values[values.count - 1])...max(values[0], values[values.count - 1]))
            }
        }
    }

    /// `12,15:20`, as the query language's `uid:` and IMAP write it.
    var text: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound):\($0.upperBound)" }
            .joined(separator: ",")
    }

    /// The UIDs given one by one (not as part of a range).
    var singles: [UInt32] { ranges.filter { $0.lowerBound == $0.upperBound }.map(\.lowerBound) }
}

/// `uids` written compactly: `3,5:7`.
func compactUIDs(_ uids: [UInt32]) -> String {
    var parts: [String] = []
    var sorted = Array(Set(uids)).sorted()[...]
    while let start = sorted.first {
        var end = start
        sorted = sorted.dropFirst()
        while let next = sorted.first, next == end + 1 {
            end = next
            sorted = sorted.dropFirst()
        }
        parts.append(start == end ? "\(start)" : "\(start):\(end)")
    }
    return parts.joined(separator: ",")
}
