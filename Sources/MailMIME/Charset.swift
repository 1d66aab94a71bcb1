// libc: iconv for the charsets Swift does not decode (MailMIME depends on nothing of ours).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Conversion of text in a MIME charset (RFC 2045 section 5.1, RFC 2046 section 4.1.2; names
/// from the IANA charset registry) to Swift strings.
///
/// UTF-8, US-ASCII, ISO-8859-1 and Windows-1252 are decoded in Swift; every other charset
/// (the rest of ISO-8859, Windows-125x, KOI8-R/U, GB2312/GBK/GB18030, Big5, Shift_JIS, EUC-JP,
/// ISO-2022-JP, EUC-KR, UTF-16, ...) goes through the C library's `iconv`.
///
/// Names are matched case-insensitively, and the common aliases and misspellings found in mail
/// are accepted (`utf8`, `latin1`, `cp1252`, `x-sjis`, `ks_c_5601-1987`, ...). Where mail in
/// practice uses a superset of the labeled charset, the superset is decoded, as browsers and mail
/// clients do (WHATWG Encoding Standard):
/// - `ISO-8859-1` and `US-ASCII`: bytes 0x80-0x9F are the Windows-1252 characters (`€`, curly
///   quotes) rather than C1 controls, which never appear in real text;
/// - `GB2312` and `GBK` are decoded as GB18030, `EUC-KR` as Windows-949, `Shift_JIS` as
///   Windows-31J (so 0x5C stays a backslash), `Big5` as Big5-HKSCS.
///
/// The type holds no state; each conversion opens and closes its own `iconv` descriptor, so it is
/// safe to use from any thread.
public enum Charset {
    /// Decodes `bytes` written in `charset` (any MIME charset name, case-insensitive).
    ///
    /// Returns `nil` when the charset is unknown or `bytes` are not valid in it.
    /// `x-unknown`, `unknown-8bit` and an empty name, which mailers write when they do not know,
    /// decode as UTF-8 when the bytes are valid UTF-8 and as Windows-1252 otherwise, so they
    /// never fail; `US-ASCII` text that carries 8-bit bytes is treated the same way.
    ///
    /// ```
    /// Charset.decode([0x53, 0xF8, 0x72, 0x65, 0x6E], charset: "ISO-8859-1")  // "Søren"
    /// Charset.decode([0xC4, 0xE3, 0xBA, 0xC3], charset: "gb2312")           // "你好"
    /// ```
    public static func decode(_ bytes: some Collection<UInt8>, charset: String) -> String? {
        guard let key = normalizedName(charset) else {
            return charset.allSatisfy(\.isWhitespace) ? decodeUnknown8Bit(bytes) : nil
        }
        switch method(for: key) {
        case .utf8:
            return decodeUTF8(bytes)
        case .unknown8Bit:
            return decodeUnknown8Bit(bytes)
        case .windows1252:
            return decodeWindows1252(bytes)
        case .iconv(let candidates):
            let input = Array(bytes)
            for candidate in candidates {
                if let text = convert(input, from: candidate) { return text }
            }
            return nil
        }
    }

    /// Decodes `bytes`, the first bytes of a longer text written in `charset`, into a prefix of
    /// the text ``decode(_:charset:)`` would make of all of it: a character cut short at the end
    /// is left out rather than decoded into something else.
    ///
    /// Returns `nil` where ``decode(_:charset:)`` would: the charset is unknown, or the bytes are
    /// not valid in it (apart from the cut character). Undeclared 8-bit text (`unknown-8bit`,
    /// `US-ASCII` with 8-bit bytes) is UTF-8 when the bytes are, apart from a cut character, and
    /// Windows-1252 otherwise; only the whole text could tell when invalid UTF-8 comes later.
    ///
    /// ```
    /// Charset.decodeStart([0x4A, 0xC3, 0xBC, 0xC3], charset: "utf-8")   // "Jü" (a cut "ü" left out)
    /// ```
    public static func decodeStart(_ bytes: some Collection<UInt8>, charset: String) -> String? {
        let input = Array(bytes)
        // A UTF-8 sequence its lead byte says is longer than what is left: the cut character.
        let utf8 = input.dropLast(cutUTF8SequenceLength(input))
        func unknown8Bit() -> String {
            String(validating: utf8, as: UTF8.self) ?? decodeWindows1252(input)
        }
        guard let key = normalizedName(charset) else {
            return charset.allSatisfy(\.isWhitespace) ? unknown8Bit() : nil
        }
        switch method(for: key) {
        case .utf8:
            return decodeUTF8(utf8)
        case .unknown8Bit:
            return unknown8Bit()
        case .windows1252:
            return decodeWindows1252(input)
        case .iconv(let candidates):
            for candidate in candidates {
                if let text = convert(input, from: candidate, stoppingAtCutEnd: true) { return text }
            }
            return nil
        }
    }

    /// How many bytes at the end of `bytes` are the start of a UTF-8 sequence cut short: a lead
    /// byte and fewer continuation bytes than it announces (0 when there is none).
    static func cutUTF8SequenceLength(_ bytes: [UInt8]) -> Int {
        guard !bytes.isEmpty else { return 0 }
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0x80 { continue }  // a continuation byte: look further back
            let length =
                byte >= 0xF0 && byte <= 0xF4
                ? 4 : byte >= 0xE0 && byte <= 0xEF ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 1
            return length > back ? back : 0
        }
        return 0
    }

    // MARK: Names

    /// How text in one charset is decoded.
    private enum Method: Sendable {
        case utf8
        /// Windows-1252, also used for ISO-8859-1.
        case windows1252
        /// US-ASCII or undeclared 8-bit text: UTF-8 when valid, else Windows-1252.
        case unknown8Bit
        /// `iconv` names to try in order; the first that converts the bytes wins.
        case iconv([String])
    }

    /// Charset names (lowercased) with a decoder other than `iconv` under the name itself.
    private static let aliases: [String: Method] = {
        var table: [String: Method] = [:]
        func add(_ names: [String], _ method: Method) {
            for name in names { table[name] = method }
        }
        add(["utf-8", "utf8", "unicode-1-1-utf-8", "unicode-2-0-utf-8", "x-unicode20utf8"], .utf8)
        add(
            [
                "us-ascii", "ascii", "us", "iso646-us", "iso-646-us", "ansi_x3.4-1968", "ansi_x3.4-1986",
                "iso-ir-6", "cp367", "ibm367", "csascii", "646",
            ], .unknown8Bit)
        add(
            [
                "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "iso88591", "8859-1", "latin1",
                "l1", "iso-ir-100", "cp819", "ibm819", "csisolatin1",
            ], .windows1252)
        add(["windows-1252", "cp1252", "ms-ansi", "ansi"], .windows1252)
        add(["unknown", "unknown-8bit", "unknown-8-bit", "8bit", "8-bit", "default", "user-defined"], .unknown8Bit)
        add(
            [
                "gb2312", "gbk", "gb18030", "cp936", "ms936", "windows-936", "euc-cn", "euccn", "csgb2312",
                "gb_2312-80", "gb_2312", "chinese", "iso-ir-58", "csiso58gb231280", "hz-gb-2312",
            ], .iconv(["GB18030"]))
        add(["big5", "cn-big5", "csbig5", "big5-hkscs", "big5hkscs"], .iconv(["BIG5-HKSCS", "CP950", "BIG5"]))
        add(["cp950", "ms950", "windows-950"], .iconv(["CP950", "BIG5-HKSCS"]))
        add(
            [
                "shift_jis", "shift-jis", "sjis", "ms_kanji", "csshiftjis", "windows-31j", "cp932", "ms932",
                "ms-kanji",
            ], .iconv(["CP932", "SHIFT_JISX0213"]))
        add(["euc-jp", "eucjp", "cseucpkdfmtjapanese", "ujis"], .iconv(["EUC-JP", "EUC-JP-MS"]))
        add(
            ["iso-2022-jp", "csiso2022jp", "iso-2022-jp-2", "iso-2022-jp-3", "iso2022jp"],
            .iconv(["ISO-2022-JP-3", "ISO-2022-JP-2", "ISO-2022-JP"]))
        add(
            [
                "euc-kr", "euckr", "cseuckr", "ks_c_5601-1987", "ks_c_5601-1989", "ks_c_5601", "ksc5601",
                "ksc_5601", "korean", "csksc56011987", "iso-ir-149", "windows-949", "cp949", "ms949", "uhc",
            ], .iconv(["CP949", "EUC-KR"]))
        add(["mac", "macintosh", "mac-roman", "macroman", "csmacintosh"], .iconv(["MACINTOSH"]))
        add(["iso-8859-8-i", "iso-8859-8-e", "iso_8859-8-i"], .iconv(["ISO-8859-8"]))
        add(["iso-8859-6-i", "iso-8859-6-e", "iso_8859-6-i"], .iconv(["ISO-8859-6"]))
        add(["tis-620", "iso-8859-11", "windows-874", "cp874", "dos-874"], .iconv(["CP874", "TIS-620"]))
        return table
    }()

    /// `name` trimmed, unquoted and lowercased; `nil` when it cannot be a charset name (so a
    /// header cannot smuggle `//TRANSLIT` or other `iconv` options in).
    private static func normalizedName(_ name: String) -> String? {
        var bytes = Array(name.utf8)[...]
        let trimmed: (UInt8) -> Bool = {
            $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A
        }
        while let first = bytes.first, trimmed(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, trimmed(last) { bytes = bytes.dropLast() }
        guard (1...64).contains(bytes.count) else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): lowered.append(byte | 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "+"):
                lowered.append(byte)
            default: return nil
            }
        }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// A key equal for two charset names exactly when they decode the same way (`UTF8` and
    /// `utf-8`, `gb2312` and `GBK`), so the bytes of neighboring encoded words can be joined.
    static func decodingKey(_ name: String) -> String? {
        guard let key = normalizedName(name) else { return nil }
        switch method(for: key) {
        case .utf8: return "utf-8"
        case .windows1252: return "windows-1252"
        case .unknown8Bit: return "unknown-8bit"
        case .iconv(let candidates): return candidates.joined(separator: ",")
        }
    }

    /// The spellings of `key` to look up: itself, then without an `x-` prefix, then with common
    /// misspellings repaired (`latin-2`, `cp-1251`, `win-1250`).
    private static func variants(of key: String) -> [String] {
        var result = [key]
        var base = key
        if base.hasPrefix("x-") {
            base.removeFirst(2)
            result.append(base)
        }
        for (prefix, replacement) in [("latin-", "latin"), ("cp-", "cp"), ("win-", "windows-"), ("win", "windows-")]
        where base.hasPrefix(prefix) && base.dropFirst(prefix.count).first?.isNumber == true {
            result.append(replacement + base.dropFirst(prefix.count))
        }
        return result
    }

    /// How to decode the charset named `key` (a normalized name).
    private static func method(for key: String) -> Method {
        // The name as it is first (`utf-8`, in nearly every encoded word): no variants to make.
        if let method = aliases[key] { return method }
        let names = variants(of: key)
        for name in names.dropFirst() {
            if let method = aliases[name] { return method }
        }
        return .iconv(names)
    }

    // MARK: Decoders in Swift

    /// Strict UTF-8, without a leading byte order mark.
    private static func decodeUTF8(_ bytes: some Collection<UInt8>) -> String? {
        var slice = bytes[...]
        if slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        return String(validating: slice, as: UTF8.self)
    }

    /// UTF-8 when valid, else Windows-1252; ASCII takes the first path.
    private static func decodeUnknown8Bit(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return decodeWindows1252(bytes)
    }

    /// The characters of Windows-1252 bytes 0x80-0x9F; the five unassigned bytes map to the C1
    /// controls of the same value, as the WHATWG Encoding Standard does. Every other byte is the
    /// code point of the same value (ISO-8859-1).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// Windows-1252, a superset of ISO-8859-1's printable characters; never fails.
    private static func decodeWindows1252(_ bytes: some Collection<UInt8>) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        // UTF-8 built directly: every character here is below U+10000.
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        for byte in bytes {
            guard byte >= 0x80 else {
                output.append(byte)
                continue
            }
            let value = byte <= 0x9F ? windows1252High[Int(byte - 0x80)] : UInt32(byte)
            if value < 0x800 {
                output.append(UInt8(0xC0 | value >> 6))
                output.append(UInt8(0x80 | value & 0x3F))
            } else {
                output.append(UInt8(0xE0 | value >> 12))
                output.append(UInt8(0x80 | (value >> 6) & 0x3F))
                output.append(UInt8(0x80 | value & 0x3F))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: iconv

    /// Converts `input` from the `iconv` charset `charset` to a string; `nil` when `iconv` does
    /// not know the charset or the input is invalid or truncated in it.
    /// With `stoppingAtCutEnd`, input that ends inside a character (EINVAL) converts up to that
    /// character, as the first bytes of a longer text do.
    private static func convert(_ input: [UInt8], from charset: String, stoppingAtCutEnd: Bool = false) -> String? {
        guard let descriptor = iconv_open("UTF-8", charset), Int(bitPattern: descriptor) != -1 else { return nil }
        defer { iconv_close(descriptor) }

        var input = input
        var output = [UInt8](repeating: 0, count: max(64, input.count * 2))
        var produced = 0
        let succeeded = input.withUnsafeMutableBufferPointer { inputBuffer -> Bool in
            var inputPointer = inputBuffer.baseAddress.map {
                UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self)
            }
            var inputLeft = inputBuffer.count
            var flushing = false
            while true {
                // With no input left, one more call with a nil input writes any shift sequence
                // that returns a stateful encoding to its initial state.
                flushing = inputLeft == 0
                let (result, error) = output.withUnsafeMutableBufferPointer { outputBuffer -> (Int, Int32) in
                    var outputPointer = outputBuffer.baseAddress.map {
                        UnsafeMutableRawPointer($0 + produced).assumingMemoryBound(to: CChar.self)
                    }
                    var outputLeft = outputBuffer.count - produced
                    let result =
                        flushing
                        ? iconv(descriptor, nil, nil, &outputPointer, &outputLeft)
                        : iconv(descriptor, &inputPointer, &inputLeft, &outputPointer, &outputLeft)
                    let error = result == -1 ? errno : 0
                    produced = outputBuffer.count - outputLeft
                    return (result, error)
                }
                if result != -1 {
                    if flushing { return true }
                    continue
                }
                if error == EINVAL, stoppingAtCutEnd { return true }
                guard error == E2BIG else { return false }  // EILSEQ: invalid; EINVAL: truncated.
                output.append(contentsOf: repeatElement(0, count: output.count))
            }
        }
        guard succeeded else { return nil }
        let converted = output[..<produced]
        // glibc's ISO-2022 decoders pass escape sequences they do not know through unchanged;
        // treat that as a failure so the next candidate (or the caller) gets a say.
        if charset.uppercased().hasPrefix("ISO-2022"), converted.contains(0x1B) { return nil }
        return String(validating: converted, as: UTF8.self)
    }
}
