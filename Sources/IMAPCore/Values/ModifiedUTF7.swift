/// Modified UTF-7, the IMAP4rev1 encoding of international mailbox names (RFC 3501 section 5.1.3).
///
/// Printable US-ASCII other than `&` stands for itself; `&` is written `&-`; any other run of
/// characters is written `&`, the modified BASE64 of its UTF-16 (RFC 2152 with `,` for `/` and no
/// `=` padding), and `-`.
///
/// ```
/// C: A001 LIST "" "~peter/mail/&U,BTFw-/*"
/// S: * LIST () "/" "~peter/mail/&U,BTFw-/&ZeVnLIqe-"     ; ~peter/mail/台北/日本語
/// ```
public enum ModifiedUTF7 {
    /// The modified BASE64 alphabet: RFC 2045's with `,` in place of `/`.
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,".utf8)

    /// The value of each alphabet byte; 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    private static let shift = UInt8(ascii: "&")
    private static let unshift = UInt8(ascii: "-")

    /// Whether `value` is printable US-ASCII (0x20-0x7E), which represents itself.
    private static func isPrintableASCII(_ value: UInt32) -> Bool { (0x20...0x7E).contains(value) }

    /// The modified UTF-7 bytes of a mailbox name.
    ///
    /// ```
    /// ModifiedUTF7.encode("台北 & Co")   // "&U,BTFw- &- Co"
    /// ```
    public static func encode(_ name: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(name.utf8.count)
        var pending: [UInt16] = []

        func flush() {
            guard !pending.isEmpty else { return }
            output.append(shift)
            appendBase64(of: pending, to: &output)
            output.append(unshift)
            pending.removeAll(keepingCapacity: true)
        }

        for scalar in name.unicodeScalars {
            if isPrintableASCII(scalar.value) {
                flush()
                output.append(UInt8(scalar.value))
                if scalar == "&" { output.append(unshift) }
            } else {
                pending.append(contentsOf: String(scalar).utf16)
            }
        }
        flush()
        return output
    }

    /// Appends the modified BASE64 of the big-endian bytes of `units`, without padding.
    private static func appendBase64(of units: [UInt16], to output: inout [UInt8]) {
        var bits: UInt32 = 0
        var bitCount = 0
        for unit in units {
            bits = bits << 16 | UInt32(unit)
            bitCount += 16
            while bitCount >= 6 {
                bitCount -= 6
                output.append(alphabet[Int(bits >> UInt32(bitCount) & 0x3F)])
            }
            bits &= (1 << UInt32(bitCount)) - 1
        }
        if bitCount > 0 { output.append(alphabet[Int(bits << UInt32(6 - bitCount) & 0x3F)]) }
    }

    // mailbox name in modified UTF-7, RFC 3501 section 5.1.3:
    //   printable US-ASCII except "&" / "&-" / "&" modified-BASE64 "-"
    /// Decodes a modified UTF-7 mailbox name; `nil` when `bytes` are not valid modified UTF-7.
    ///
    /// Invalid are: bytes outside printable US-ASCII, an `&` without its `-`, characters outside
    /// the modified BASE64 alphabet, a BASE64 run whose bits do not end on a whole UTF-16 unit
    /// or leave non-zero padding bits, unpaired surrogates, printable US-ASCII encoded in BASE64,
    /// and null shifts (`-&` straight back into BASE64), none of which an encoder produces.
    public static func decode(_ bytes: some Collection<UInt8>) -> String? {
        let input = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < input.count {
            let byte = input[index]
            guard isPrintableASCII(UInt32(byte)) else { return nil }
            index += 1
            guard byte == shift else {
                scalars.append(Unicode.Scalar(byte))
                continue
            }
            guard let end = input[index...].firstIndex(of: unshift) else { return nil }
            if end == index {
                scalars.append("&")
            } else {
                guard let units = decodeBase64(input[index..<end]), appendScalars(of: units, to: &scalars) else {
                    return nil
                }
                // "-&" straight into another run is a null shift; "-&-" is a run then an "&".
                if end + 2 < input.count, input[end + 1] == shift, input[end + 2] != unshift { return nil }
            }
            index = end + 1
        }
        return String(scalars)
    }

    /// The UTF-16 units of a modified BASE64 run; `nil` unless it holds whole units followed
    /// by at most 4 zero padding bits.
    private static func decodeBase64(_ text: ArraySlice<UInt8>) -> [UInt16]? {
        var units: [UInt16] = []
        var bits: UInt32 = 0
        var bitCount = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            bits = bits << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 16 {
                bitCount -= 16
                units.append(UInt16(truncatingIfNeeded: bits >> UInt32(bitCount)))
                bits &= (1 << UInt32(bitCount)) - 1
            }
        }
        guard bitCount < 6, bits == 0 else { return nil }
        return units
    }

    /// Appends the characters of UTF-16 `units`; `false` for an unpaired surrogate or a printable
    /// US-ASCII character, which must not be encoded.
    private static func appendScalars(of units: [UInt16], to scalars: inout String.UnicodeScalarView) -> Bool {
        var index = 0
        while index < units.count {
            let unit = UInt32(units[index])
            var value = unit
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < units.count, (0xDC00...0xDFFF).contains(units[index + 1]) else { return false }
                value = 0x10000 + ((unit - 0xD800) << 10) + (UInt32(units[index + 1]) - 0xDC00)
                index += 2
            case 0xDC00...0xDFFF:
                return false
            default:
                index += 1
            }
            guard !isPrintableASCII(value), let scalar = Unicode.Scalar(value) else { return false }
            scalars.append(scalar)
        }
        return true
    }
}

extension MailboxName {
    /// A mailbox name from the name people see, encoded in modified UTF-7 as IMAP4rev1 requires
    /// (RFC 3501 section 5.1.3).
    ///
    /// ```
    /// MailboxName(displayName: "~peter/mail/台北").bytes   // "~peter/mail/&U,BTFw-"
    /// ```
    public init(displayName: String) {
        self.init(ByteString(ModifiedUTF7.encode(displayName)))
    }

    /// The name to show people: the modified UTF-7 decoded, or the bytes as UTF-8 when they are
    /// not valid modified UTF-7, as IMAP4rev2 and UTF8=ACCEPT servers send names in UTF-8
    /// (RFC 9051 section 5.1).
    public var displayName: String {
        ModifiedUTF7.decode(bytes.bytes) ?? bytes.string
    }
}
