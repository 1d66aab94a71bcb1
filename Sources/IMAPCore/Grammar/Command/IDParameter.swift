/// One field of the ID command (RFC 2971): a name and a value, or NIL.
///
/// `C: a3 ID ("name" "transcript")` has one parameter, `IDParameter(key: "name", value: "transcript")`.
public struct IDParameter: Hashable, Sendable {
    /// The field name (`name`, `version`, `vendor`, ...).
    public var key: ByteString
    /// The value, or nil for NIL.
    public var value: ByteString?

    /// A field.
    public init(key: ByteString, value: ByteString?) {
        self.key = key
        self.value = value
    }
}

extension ByteCursor {
    // id-params-list = "(" *(string SP nstring) ")" / nil
    /// The ID parameters: nil for NIL, else the fields in order.
    public mutating func parseIDParameters() throws(IMAPParseError) -> [IDParameter]? {
        if consumeNIL() { return nil }
        return try parseList { (cursor: inout ByteCursor) throws(IMAPParseError) -> IDParameter in
            let key = try cursor.parseString()
            try cursor.expectSpace()
            return IDParameter(key: key, value: try cursor.parseNString())
        }
    }
}

extension EncodeBuffer {
    /// Writes `NIL` or `("key" "value" ...)`.
    public mutating func write(_ parameters: [IDParameter]?) {
        guard let parameters else {
            writeRaw("NIL")
            return
        }
        writeRaw("(")
        for (position, parameter) in parameters.enumerated() {
            if position > 0 { writeSpace() }
            writeString(parameter.key)
            writeSpace()
            writeNString(parameter.value)
        }
        writeRaw(")")
    }
}
