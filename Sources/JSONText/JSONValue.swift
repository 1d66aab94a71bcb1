/// A JSON value whose objects keep their keys in the order they were added, so output lines are
/// stable and diffable.
///
/// ```swift
/// let line: JSONValue = ["kind": "exists", "count": 3]
/// line.encoded()  // {"kind":"exists","count":3}
/// ```
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// Unsigned values that may not fit `Int64` (MODSEQ is 63 bits, but a server may send more).
    case unsignedInteger(UInt64)
    /// A number with a fraction or an exponent (always finite).
    case fraction(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value, or `null` when it is nil.
    public static func optional(_ value: JSONValue?) -> JSONValue { value ?? .null }

    /// A number from an unsigned integer of any width.
    public static func number<Integer: UnsignedInteger>(_ value: Integer) -> JSONValue {
        .unsignedInteger(UInt64(value))
    }

    /// A number or `null`.
    public static func number<Integer: UnsignedInteger>(_ value: Integer?) -> JSONValue {
        value.map { .unsignedInteger(UInt64($0)) } ?? .null
    }

    /// A string or `null`.
    public static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// The text of a string, else nil.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of an array, else nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members of an object, else nil.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The texts of an array of strings only, else nil.
    public var stringArrayValue: [String]? {
        guard let elements = arrayValue else { return nil }
        let texts = elements.compactMap(\.stringValue)
        return texts.count == elements.count ? texts : nil
    }

    /// The compact encoding: no spaces, non-ASCII characters kept as UTF-8.
    public func encoded() -> String {
        var bytes: [UInt8] = []
        JSONWriter.write(self, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

/// A JSON object: members in insertion order. Setting an existing key replaces its value in place.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// One `"key": value` pair.
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in output order.
    public private(set) var members: [Member]

    /// An object with `members`, in that order.
    public init(members: [Member] = []) { self.members = members }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.members = elements.map { Member(key: $0.0, value: $0.1) }
    }

    /// The value for `key`; setting appends a new key at the end or replaces an existing one in
    /// place, and setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            let position = members.firstIndex { $0.key == key }
            switch (position, newValue) {
            case (let position?, let value?): members[position].value = value
            case (let position?, nil): members.remove(at: position)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// Appends `key` without checking whether it is already there (the fast path for building
    /// output whose keys are known to be distinct).
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }
}
