/// A message sequence number or UID in a set: a number or `*` (the largest in use).
public enum SequenceNumber: Hashable, Sendable, Comparable {
    case number(UInt32)
    /// `*`: the last message.
    case last

    public static func < (lhs: SequenceNumber, rhs: SequenceNumber) -> Bool {
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)): return left < right
        case (.number, .last): return true
        case (.last, _): return false
        }
    }
}

/// A range `first:last` of a sequence set; a single number has `first == last`.
public struct SequenceRange: Hashable, Sendable {
    public var first: SequenceNumber
    public var last: SequenceNumber

    /// A range; the bounds are put in order (RFC 3501: `4:2` means `2:4`).
    public init(_ first: SequenceNumber, _ last: SequenceNumber) {
        self.first = min(first, last)
        self.last = max(first, last)
    }

    /// The single number `value`.
    public init(_ value: UInt32) { self.init(.number(value), .number(value)) }

    /// The range `range.lowerBound:range.upperBound`.
    public init(_ range: ClosedRange<UInt32>) { self.init(.number(range.lowerBound), .number(range.upperBound)) }
}

/// A sequence set or UID set (RFC 3501 `sequence-set`, RFC 9051 `sequence-set`), or `$` (RFC 5182,
/// the result of the last SEARCH).
///
/// Sets are always kept compressed: ranges sorted and merged, so `1,2,3,5` is `1:3,5`. A long UID
/// list therefore goes on the wire as short as it can; see `split(maximumEncodedLength:)` for
/// commands that must stay under a server's line limit.
public struct SequenceSet: Hashable, Sendable, CustomStringConvertible {
    /// The ranges, sorted and merged. Empty only for `lastSearchResult`.
    public private(set) var ranges: [SequenceRange]
    /// `$`: the saved result of the last SEARCH (RFC 5182).
    public private(set) var isLastSearchResult: Bool

    /// `$`.
    public static let lastSearchResult = SequenceSet(ranges: [], isLastSearchResult: true)

    /// `1:*`: every message.
    public static let all = SequenceSet([SequenceRange(.number(1), .last)])

    private init(ranges: [SequenceRange], isLastSearchResult: Bool) {
        self.ranges = ranges
        self.isLastSearchResult = isLastSearchResult
    }

    /// A set of `ranges`, sorted and merged.
    public init(_ ranges: [SequenceRange]) {
        self.ranges = Self.normalize(ranges)
        self.isLastSearchResult = false
    }

    /// The set of `numbers` (any order, duplicates allowed), compressed into ranges.
    public init<Numbers: Sequence<UInt32>>(numbers: Numbers) {
        var sorted = Array(numbers)
        sorted.sort()
        var ranges: [SequenceRange] = []
        var index = 0
        while index < sorted.count {
            let start = sorted[index]
            var end = start
            index += 1
            while index < sorted.count && (sorted[index] == end || sorted[index] == end &+ 1) {
                end = sorted[index]
                index += 1
            }
            ranges.append(SequenceRange(start...end))
        }
        self.ranges = ranges
        self.isLastSearchResult = false
    }

    /// The single number `value`.
    public init(_ value: UInt32) { self.init([SequenceRange(value)]) }

    /// The set of one range of numbers (`1...500` is `1:500`).
    public init(_ range: ClosedRange<UInt32>) { self.init([SequenceRange(range)]) }

    /// Whether the set names no message.
    public var isEmpty: Bool { ranges.isEmpty && !isLastSearchResult }

    /// The numbers in the set, ascending, when it has no `*` and is not `$`.
    public var numbers: [UInt32]? {
        guard !isLastSearchResult else { return nil }
        var result: [UInt32] = []
        for range in ranges {
            guard case .number(let first) = range.first, case .number(let last) = range.last else { return nil }
            result.append(contentsOf: first...last)
        }
        return result
    }

    /// How many numbers the set holds, when it has no `*`.
    public var count: Int? {
        guard !isLastSearchResult else { return nil }
        var total = 0
        for range in ranges {
            guard case .number(let first) = range.first, case .number(let last) = range.last else { return nil }
            total += Int(last - first) + 1
        }
        return total
    }

    /// Whether `value` is in the set (`*` counts as `largest`).
    ///
    /// The ranges are sorted and merged, so only the last one can hold a `*`: that one is
    /// resolved against `largest`, and the ranges of plain numbers before it are searched by
    /// halves (a window of 1,000 scattered UIDs is asked for every FETCH response).
    public func contains(_ value: UInt32, largest: UInt32 = .max) -> Bool {
        func holds(_ range: SequenceRange) -> Bool {
            let first = range.first.resolved(largest: largest)
            let last = range.last.resolved(largest: largest)
            return value >= min(first, last) && value <= max(first, last)
        }
        var count = ranges.count
        if let final = ranges.last, final.last == .last {
            if holds(final) { return true }
            count -= 1
        }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            guard case .number(let first) = ranges[middle].first, case .number(let last) = ranges[middle].last else {
                // Not reached (`*` sorts after every number); if it were, look at every range.
                return ranges.contains(where: holds)
            }
            if value < first {
                high = middle
            } else if value > last {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Splits the set into sets whose encoding is at most `maximumEncodedLength` bytes each, so a
    /// command for 20,000 scattered UIDs never becomes an over-long line.
    public func split(maximumEncodedLength: Int) -> [SequenceSet] {
        guard !isLastSearchResult else { return [self] }
        var result: [SequenceSet] = []
        var current: [SequenceRange] = []
        var length = 0
        for range in ranges {
            let rangeLength = Self.encodedLength(range) + (current.isEmpty ? 0 : 1)
            if !current.isEmpty && length + rangeLength > maximumEncodedLength {
                result.append(SequenceSet(ranges: current, isLastSearchResult: false))
                current = []
                length = 0
            }
            length += Self.encodedLength(range) + (current.isEmpty ? 0 : 1)
            current.append(range)
        }
        if !current.isEmpty { result.append(SequenceSet(ranges: current, isLastSearchResult: false)) }
        return result
    }

    public var description: String {
        var buffer = EncodeBuffer()
        buffer.write(self)
        return String(decoding: buffer.bytesForDisplay, as: UTF8.self)
    }

    static func encodedLength(_ range: SequenceRange) -> Int {
        func length(_ number: SequenceNumber) -> Int {
            switch number {
            case .last: return 1
            case .number(let value): return String(value).utf8.count
            }
        }
        return range.first == range.last ? length(range.first) : length(range.first) + 1 + length(range.last)
    }

    static func normalize(_ input: [SequenceRange]) -> [SequenceRange] {
        guard input.count > 1 else { return input }
        let sorted = input.sorted { ($0.first, $0.last) < ($1.first, $1.last) }
        var merged: [SequenceRange] = [sorted[0]]
        for range in sorted.dropFirst() {
            let previous = merged[merged.count - 1]
            if case .number(let previousLast) = previous.last, case .number(let first) = range.first,
                first <= previousLast &+ 1 || previousLast == .max
            {
                merged[merged.count - 1].last = max(previous.last, range.last)
            } else if previous.last == .last {
                merged[merged.count - 1].last = .last  // `n:*` covers everything after it
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

extension SequenceNumber {
    func resolved(largest: UInt32) -> UInt32 {
        switch self {
        case .number(let value): return value
        case .last: return largest
        }
    }
}

extension ByteCursor {
    // seq-number = nz-number / "*"
    @inlinable mutating func parseSequenceNumber() throws(IMAPParseError) -> SequenceNumber {
        if consume(UInt8(ascii: "*")) { return .last }
        return .number(try parseNumber())
    }

    // sequence-set = (seq-number / seq-range) ["," sequence-set]   ; RFC 9051 adds "$"
    // seq-range = seq-number ":" seq-number
    /// A sequence or UID set.
    public mutating func parseSequenceSet() throws(IMAPParseError) -> SequenceSet {
        if consume(UInt8(ascii: "$")) { return .lastSearchResult }
        var ranges: [SequenceRange] = []
        repeat {
            let first = try parseSequenceNumber()
            if consume(UInt8(ascii: ":")) {
                ranges.append(SequenceRange(first, try parseSequenceNumber()))
            } else {
                ranges.append(SequenceRange(first, first))
            }
        } while consume(UInt8(ascii: ","))
        return SequenceSet(ranges)
    }
}

extension EncodeBuffer {
    /// Writes the set compressed into ranges.
    public mutating func write(_ set: SequenceSet) {
        if set.isLastSearchResult {
            writeRaw("$")
            return
        }
        for (position, range) in set.ranges.enumerated() {
            if position > 0 { writeRaw(",") }
            write(range.first)
            if range.first != range.last {
                writeRaw(":")
                write(range.last)
            }
        }
    }

    mutating func write(_ number: SequenceNumber) {
        switch number {
        case .last: writeRaw("*")
        case .number(let value): writeNumber(value)
        }
    }
}
