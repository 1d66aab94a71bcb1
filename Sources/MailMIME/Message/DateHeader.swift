/// A moment read from a Date header: the wall-clock time and zone as written, and the instant.
public struct ParsedDate: Hashable, Sendable {
    /// The year, four digits (two-digit years are 1950-2049).
    public var year: Int
    /// The month, 1-12.
    public var month: Int
    /// The day of the month in the header's zone.
    public var day: Int
    /// The hour, 0-23, in the header's zone.
    public var hour: Int
    /// The minute, 0-59.
    public var minute: Int
    /// The second, 0-60 (0 when the header has none).
    public var second: Int
    /// The zone's offset from UTC in minutes (`+0100` is 60); 0 for `-0000`, `GMT` and zones
    /// RFC 5322 says to treat as unknown.
    public var zoneOffsetMinutes: Int

    /// A date; nil when a field is out of range (`30 Feb`, `25:00`).
    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, zoneOffsetMinutes: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...DateHeader.daysInMonth(year: year, month: month)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second), abs(zoneOffsetMinutes) < 100 * 60
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.zoneOffsetMinutes = zoneOffsetMinutes
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    public var timestamp: Int {
        DateHeader.daysSinceEpoch(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60
            + second - zoneOffsetMinutes * 60
    }
}

/// Parses Date header values (RFC 5322 section 3.3 with the obsolete forms of section 4.3)
/// leniently: a missing day of the week or seconds, two- and three-digit years, named zones
/// (`GMT`, `EST`, `PDT`), comments (`(UTC)`), extra white space, and the `Jan 5` and ctime
/// (`Fri Jan  5 10:00:00 2024`) orders.
///
/// ```
/// DateHeader.parse("Fri, 01 Dec 2023 00:13:23 -0800 (PST)")?.timestamp   // 1701418403
/// ```
public enum DateHeader {
    // date-time = [ day-of-week "," ] date time [CFWS]
    // date = day month year ; time = time-of-day zone ; time-of-day = hour ":" minute [ ":" second ]
    // zone = (FWS ( "+" / "-" ) 4DIGIT) / obs-zone
    // obs-year = [CFWS] 2*DIGIT [CFWS]
    /// The date in `value`, or nil when it has no recognizable day, month, year and time.
    public static func parse(_ value: String) -> ParsedDate? { parse(bytes: Array(value.utf8)) }

    /// The date in a raw header value.
    public static func parse(bytes: some Collection<UInt8>) -> ParsedDate? {
        let tokens = tokenize(Array(bytes))
        var position = 0
        func next() -> Token? { position < tokens.count ? tokens[position] : nil }

        // An optional day of the week and comma.
        if case .word(let word) = next(), monthNumber(word) == nil {
            position += 1
            if case .comma = next() { position += 1 }
        }
        var day: Int?
        var month: Int?
        var year: Int?
        var yearDigits = 0
        // day month year / month day [year]
        if case .number(let number, _) = next() {
            day = number
            position += 1
            if case .word(let word) = next() { month = monthNumber(word) }
            position += 1
        } else if case .word(let word) = next(), let number = monthNumber(word) {
            month = number
            position += 1
            if case .number(let value, _) = next() {
                day = value
                position += 1
            }
        }
        if case .comma = next() { position += 1 }
        if case .number(let number, let digits) = next(),
            !(tokens.count > position + 1 && tokens[position + 1] == .colon)
        {
            year = number
            yearDigits = digits
            position += 1
        }
        guard let dayValue = day, let monthValue = month else { return nil }

        var hour = 0
        var minute = 0
        var second = 0
        if case .number(let value, _) = next(), position + 2 < tokens.count, tokens[position + 1] == .colon,
            case .number(let minutes, _) = tokens[position + 2]
        {
            hour = value
            minute = minutes
            position += 3
            if position + 1 < tokens.count, tokens[position] == .colon,
                case .number(let seconds, _) = tokens[position + 1]
            {
                second = seconds
                position += 2
            }
        } else {
            return nil
        }

        var zone = 0
        switch next() {
        case .sign(let negative):
            position += 1
            if case .number(let value, let digits) = next() {
                let minutes = digits <= 2 ? value * 60 : (value / 100) * 60 + value % 100
                zone = negative ? -minutes : minutes
                position += 1
            }
        case .word(let word):
            zone = namedZones[word] ?? 0
            position += 1
        default:
            break
        }
        // ctime puts the year last.
        if year == nil, case .number(let number, let digits) = next() {
            year = number
            yearDigits = digits
        }
        guard var yearValue = year else { return nil }
        // obs-year: two digits are 1950-2049, three digits count from 1900 (RFC 5322 4.3).
        if yearDigits <= 2 {
            yearValue += yearValue < 50 ? 2000 : 1900
        } else if yearDigits == 3 {
            yearValue += 1900
        }
        return ParsedDate(
            year: yearValue, month: monthValue, day: dayValue, hour: hour, minute: minute, second: second,
            zoneOffsetMinutes: zone)
    }

    // MARK: Tokens

    private enum Token: Equatable {
        case word(String)
        case number(Int, digits: Int)
        case colon
        case comma
        case sign(negative: Bool)
        case other
    }

    /// Words (lowercased), numbers and punctuation; comments and white space dropped.
    private static func tokenize(_ bytes: [UInt8]) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(16)
        var index = 0
        var depth = 0
        while index < bytes.count, tokens.count < 64 {
            let byte = bytes[index]
            if depth > 0 {
                if byte == UInt8(ascii: "(") { depth += 1 }
                if byte == UInt8(ascii: ")") { depth -= 1 }
                if byte == UInt8(ascii: "\\") { index += 1 }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                var value = 0
                var digits = 0
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                    if digits < 9 { value = value * 10 + Int(bytes[index] - 0x30) }
                    digits += 1
                    index += 1
                }
                tokens.append(.number(value, digits: digits))
                continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                let start = index
                while index < bytes.count, bytes[index] | 0x20 >= UInt8(ascii: "a"),
                    bytes[index] | 0x20 <= UInt8(ascii: "z")
                {
                    index += 1
                }
                // At most 16 letters, lower-cased; a word of up to 15 is a small String (no
                // allocation).
                let length = min(index - start, 16)
                let word = String(unsafeUninitializedCapacity: length) { buffer in
                    for offset in 0..<length { buffer[offset] = bytes[start + offset] | 0x20 }
                    return length
                }
                tokens.append(.word(word))
                continue
            case UInt8(ascii: "("): depth = 1
            case UInt8(ascii: ":"): tokens.append(.colon)
            case UInt8(ascii: ","): tokens.append(.comma)
            case UInt8(ascii: "+"): tokens.append(.sign(negative: false))
            case UInt8(ascii: "-"): tokens.append(.sign(negative: true))
            case 0x20, 0x09, 0x0D, 0x0A, UInt8(ascii: "."): break
            default: tokens.append(.other)
            }
            index += 1
        }
        return tokens
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// 1...12 for a month name or its first three letters.
    private static func monthNumber(_ word: String) -> Int? {
        guard word.utf8.count >= 3 else { return nil }
        let prefix = String(word.prefix(3))
        return monthNames.firstIndex(of: prefix).map { $0 + 1 }
    }

    /// obs-zone (RFC 5322 4.3): the North American zones; military letters and unknown names are
    /// -0000, which counts as UTC.
    private static let namedZones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "est": -300, "edt": -240, "cst": -360, "cdt": -300, "mst": -420,
        "mdt": -360, "pst": -480, "pdt": -420,
    ]

    // MARK: Calendar

    /// The number of days in `month` of `year` (proleptic Gregorian).
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given day (negative before).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        // The civil-from-days algorithm in reverse: years start in March so the leap day is last.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
