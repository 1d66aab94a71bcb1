import IMAPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses the same bytes again and again and times it, next to two baselines over the same
/// chunks: a memchr scan for CRLF (the floor of any line-based reader) and FrameDecoder alone
/// (how much of the parser's time is framing).
struct ParseBenchmark {
    /// What one way of reading the bytes achieved over all rounds.
    struct Measurement {
        var name: String
        /// Seconds per round, sorted.
        var seconds: [Double]
        /// What one round counted (responses, frames or lines).
        var units: Int

        var best: Double { seconds[0] }
        var median: Double { (seconds[(seconds.count - 1) / 2] + seconds[seconds.count / 2]) / 2 }
    }

    struct Report {
        var byteCount: Int
        var responseCount: Int
        var rounds: Int
        var parser: Measurement
        var framing: Measurement
        var crlfScan: Measurement
    }

    /// Chunks as a socket delivers them.
    static let chunkSize = 64 * 1024

    let bytes: [UInt8]
    let rounds: Int

    func run() throws(IMAPParseError) -> Report {
        let parser = try measure("parser") { () throws(IMAPParseError) -> Int in try parseRound() }
        let framing = try measure("framing") { () throws(IMAPParseError) -> Int in try frameRound() }
        let crlfScan = try measure("crlf scan") { () -> Int in crlfRound() }
        return Report(
            byteCount: bytes.count, responseCount: parser.units, rounds: rounds, parser: parser, framing: framing,
            crlfScan: crlfScan)
    }

    /// One warm-up round, then `rounds` timed ones.
    private func measure(
        _ name: String, _ round: () throws(IMAPParseError) -> Int
    ) throws(IMAPParseError)
        -> Measurement
    {
        let units = try round()
        var seconds: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let start = clock.now
            let counted = try round()
            let elapsed = clock.now - start
            precondition(counted == units, "\(name): round counted \(counted), warm-up \(units)")
            let (wholeSeconds, attoseconds) = elapsed.components
            seconds.append(Double(wholeSeconds) + Double(attoseconds) * 1e-18)
        }
        seconds.sort()
        return Measurement(name: name, seconds: seconds, units: units)
    }

    /// Parses every response through a fresh parser; returns how many there were.
    private func parseRound() throws(IMAPParseError) -> Int {
        var parser = ResponseParser()
        var responses = 0
        var digest = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + Self.chunkSize, bytes.count)
            parser.append(bytes[offset..<end])
            while let response = try parser.next() {
                responses += 1
                digest &+= touch(response)
            }
            offset = end
        }
        guard parser.bufferedByteCount == 0 else {
            throw IMAPParseError(
                code: .unexpectedEnd, message: "the file ends inside a response", offset: bytes.count, excerpt: "")
        }
        keep(digest)
        return responses
    }

    /// Frames the bytes without parsing them.
    private func frameRound() throws(IMAPParseError) -> Int {
        var decoder = FrameDecoder()
        var frames = 0
        var digest = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + Self.chunkSize, bytes.count)
            decoder.append(bytes[offset..<end])
            while let frame = try decoder.nextFrame() {
                frames += 1
                digest &+= frame.bytes.count
            }
            offset = end
        }
        keep(digest)
        return frames
    }

    /// Counts CRLFs with memchr, chunk by chunk.
    private func crlfRound() -> Int {
        bytes.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var lines = 0
            var offset = 0
            while offset < buffer.count {
                let end = min(offset + Self.chunkSize, buffer.count)
                var position = offset
                while position < end, let found = memchr(base + position, 0x0A, end - position) {
                    let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if index > 0 && base[index - 1] == 0x0D { lines += 1 }
                    position = index + 1
                }
                offset = end
            }
            return lines
        }
    }
}

/// Reads something out of each response so that building it cannot be optimized away. It reads
/// only top-level fields: copying an Envelope out (`fetch.envelope`) costs ~8% of a round, which
/// is the caller's cost, not the parser's.
@inline(never) func touch(_ response: Response) -> Int {
    switch response {
    case .untagged(.fetch(let fetch)): return Int(fetch.sequenceNumber) &+ fetch.attributes.count
    case .tagged(let tagged): return tagged.tag.utf8.count
    case .untagged: return 1
    case .continuation(let continuation): return continuation.text.count
    }
}

/// An opaque sink for a result.
@inline(never) func keep(_ value: Int) {
    if value == 0x5eed_5eed_5eed { print("") }
}

extension ParseBenchmark.Measurement {
    func megabytesPerSecond(_ seconds: Double, bytes: Int) -> Double { Double(bytes) / seconds / 1e6 }
}

extension ParseBenchmark.Report {
    /// The table for a person.
    func table(file: String) -> String {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        var lines = [
            "parse   \(name)  \(fixed(Double(byteCount) / 1e6, 2)) MB  \(responseCount) responses  "
                + "(\(rounds) rounds, 64 KiB chunks)"
        ]
        for measurement in [parser, framing, crlfScan] {
            let label = (measurement.name + ":").padding(to: 11)
            let unit = measurement.name == "parser" ? "responses" : measurement.name == "framing" ? "frames" : "lines"
            func rate(_ seconds: Double) -> String {
                "\(fixed(Double(byteCount) / seconds / 1e6, 1)) MB/s (\(count(Double(measurement.units) / seconds)) \(unit)/s)"
            }
            lines.append("  \(label) best \(rate(measurement.best))  median \(rate(measurement.median))")
        }
        lines.append(
            "  parser/crlf: best \(fixed(crlfScan.best / parser.best * 100, 2))%  "
                + "median \(fixed(crlfScan.median / parser.median * 100, 2))%  "
                + "(the scan is \(fixed(parser.median / crlfScan.median, 1))x faster)")
        return lines.joined(separator: "\n")
    }

    /// One JSON object.
    func json(file: String) -> String {
        func entry(_ measurement: ParseBenchmark.Measurement) -> String {
            let bestRate = Double(byteCount) / measurement.best / 1e6
            let medianRate = Double(byteCount) / measurement.median / 1e6
            return "{\"bestMBps\":\(fixed(bestRate, 2)),\"medianMBps\":\(fixed(medianRate, 2)),"
                + "\"bestPerSecond\":\(Int(Double(measurement.units) / measurement.best)),"
                + "\"medianPerSecond\":\(Int(Double(measurement.units) / measurement.median)),"
                + "\"units\":\(measurement.units)}"
        }
        return "{\"benchmark\":\"parse\",\"file\":\(quoted(file)),\"bytes\":\(byteCount),"
            + "\"responses\":\(responseCount),\"rounds\":\(rounds),\"chunkSize\":\(ParseBenchmark.chunkSize),"
            + "\"parser\":\(entry(parser)),\"framing\":\(entry(framing)),\"crlfScan\":\(entry(crlfScan)),"
            + "\"parserToCrlf\":{\"best\":\(fixed(crlfScan.best / parser.best, 4)),"
            + "\"median\":\(fixed(crlfScan.median / parser.median, 4))}}"
    }
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    guard digits > 0 else { return String(whole) }
    let fraction = String(scaled % Int(scale))
    return "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}

/// `557k`, `1.2M`.
func count(_ value: Double) -> String {
    if value >= 1e6 { return "\(fixed(value / 1e6, 2))M" }
    if value >= 1e3 { return "\(Int((value / 1e3).rounded()))k" }
    return String(Int(value))
}

/// A JSON string literal (file names: quote, backslash and control characters escaped).
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

struct ReadError: Error, CustomStringConvertible {
    var description: String
}

/// The whole file.
func readFile(_ path: String) throws(ReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ReadError(description: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw ReadError(description: String(cString: strerror(errno)))
        }
        if count == 0 { return bytes }
        bytes.append(contentsOf: chunk[0..<count])
    }
}
