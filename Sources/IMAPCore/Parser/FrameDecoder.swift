// memchr: line ends are found with libc's vectorised search (IMAPCore depends on nothing of ours).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One complete command or response: every line and literal up to its final CRLF.
public struct Frame: Hashable, Sendable {
    /// The bytes, CRLF included.
    public let bytes: [UInt8]
    /// Offset of the first byte in the whole stream.
    public let streamOffset: Int
}

/// Cuts a byte stream into frames, in any chunking: a CRLF or a literal split at any byte is
/// fine. It keeps its place between calls (it never rescans bytes it has seen) and holds at most
/// one frame plus what has arrived after it.
///
/// A line that ends in `{n}` announces a literal of n bytes that belongs to the same frame;
/// `{n+}`, `{n-}` and `~{n}` do too.
public struct FrameDecoder: Sendable {
    /// Limits in force; a server may tighten them between frames (before login, say).
    public var options: ParserOptions
    private var buffer: [UInt8] = []
    /// Where the current frame starts in `buffer`.
    private var frameStart = 0
    /// How far `buffer` has been scanned.
    private var scanIndex = 0
    /// Where the current line starts.
    private var lineStart = 0
    /// Bytes of a literal still to come before scanning for CRLF resumes.
    private var literalRemaining = 0
    /// Bytes consumed (dropped from the front of `buffer`) so far.
    private var consumedBeforeBuffer = 0
    /// After a limit error: bytes of a refused literal still to be thrown away.
    private var discardRemaining = 0
    /// After a limit error: throw bytes away up to and including the next LF.
    private var discardingLine = false
    /// The first bytes (at most 64) of the frame the last limit error refused, so a server can
    /// find the command's tag and answer `tag BAD`.
    public private(set) var refusedFramePrefix: [UInt8] = []

    /// Whether a synchronizing literal's bytes follow without a continuation request: true when
    /// reading responses (a server never waits), false when reading commands (a client waits for
    /// `+`, so a refused literal is never sent).
    public let literalsAlwaysFollow: Bool

    /// A decoder with `options`; `literalsAlwaysFollow` is true for a client reading responses.
    public init(options: ParserOptions = .init(), literalsAlwaysFollow: Bool = false) {
        self.options = options
        self.literalsAlwaysFollow = literalsAlwaysFollow
        buffer.reserveCapacity(64 * 1024)
    }

    /// What `next()` found.
    public enum Event: Hashable, Sendable {
        /// A complete frame.
        case frame(Frame)
        /// A line ended with a synchronizing literal `{n}`: a server must now send `+` (or refuse)
        /// before the peer sends the literal. Reported once per literal.
        case synchronizingLiteral(size: Int)
    }

    /// Adds bytes that arrived.
    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        // Framed bytes go before new ones arrive, when what is kept (the start of a frame) is no
        // longer than what goes: moving that remnant is cheap, while waiting for `next()` to
        // compact moved most of a 64 KiB chunk every other chunk (a third of all the copying).
        if frameStart > 0 && buffer.count - frameStart <= frameStart { dropFramedBytes() }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes that have arrived but belong to no complete frame yet.
    public var bufferedByteCount: Int { buffer.count - frameStart }

    /// Whether the peer is still sending a literal that a limit refused (a non-synchronizing one,
    /// sent without waiting), whose bytes are being thrown away as they come.
    public var isDiscardingRefusedLiteral: Bool { discardRemaining > 0 }

    /// Bytes held in memory, framed or not (a test hook: framed bytes are dropped only now and
    /// then, and a test checks that they are).
    package var storedByteCount: Int { buffer.count }

    /// The offset in the stream of the next byte to be framed.
    public var streamOffset: Int { consumedBeforeBuffer + frameStart }

    /// Takes the bytes not yet framed and resets (for STARTTLS: bytes that arrived before the
    /// TLS handshake must be thrown away, and for a server switching to raw SASL lines).
    public mutating func takeUnframedBytes() -> [UInt8] {
        let rest = Array(buffer[frameStart...])
        consumedBeforeBuffer += buffer.count
        buffer.removeAll(keepingCapacity: true)
        frameStart = 0
        scanIndex = 0
        lineStart = 0
        literalRemaining = 0
        return rest
    }

    /// The next frame or event, or nil when more bytes are needed.
    public mutating func next() throws(IMAPParseError) -> Event? {
        while true {
            if discardRemaining > 0 || discardingLine {
                guard skipDiscarded() else { return nil }
            }
            if literalRemaining > 0 {
                let available = buffer.count - scanIndex
                if available < literalRemaining {
                    literalRemaining -= available
                    scanIndex = buffer.count
                    return nil
                }
                scanIndex += literalRemaining
                literalRemaining = 0
                lineStart = scanIndex
            }
            guard let newline = findNewline(from: scanIndex) else {
                scanIndex = buffer.count
                if buffer.count - lineStart > options.maximumLineLength {
                    throw refuse(.lineTooLong, "a line longer than \(options.maximumLineLength) bytes", skipping: nil)
                }
                if buffer.count - frameStart > options.maximumFrameSize {
                    throw refuse(
                        .frameTooLarge, "a command or response larger than \(options.maximumFrameSize) bytes",
                        skipping: nil)
                }
                return nil
            }
            if newline - lineStart > options.maximumLineLength {
                scanIndex = newline + 1
                throw refuse(.lineTooLong, "a line longer than \(options.maximumLineLength) bytes", skipping: 0)
            }
            scanIndex = newline + 1
            let announcement: (Int, Bool)?
            do {
                announcement = try literalAnnouncement(endingAt: newline)
            } catch {
                throw refuse(error.code, error.message, skipping: 0)
            }
            if let (size, synchronizing) = announcement {
                guard size <= options.maximumLiteralSize else {
                    throw refuse(
                        .literalTooLarge, "a literal of \(size) bytes (the limit is \(options.maximumLiteralSize))",
                        skipping: synchronizing && !literalsAlwaysFollow ? 0 : size)
                }
                if newline + 1 - frameStart + size > options.maximumFrameSize {
                    throw refuse(
                        .frameTooLarge, "a command or response larger than \(options.maximumFrameSize) bytes",
                        skipping: synchronizing && !literalsAlwaysFollow ? 0 : size)
                }
                literalRemaining = size
                if size == 0 { lineStart = scanIndex }
                if synchronizing {
                    return .synchronizingLiteral(size: size)
                }
                continue
            }
            let frame = Frame(
                bytes: Array(buffer[frameStart..<scanIndex]), streamOffset: consumedBeforeBuffer + frameStart)
            frameStart = scanIndex
            lineStart = scanIndex
            compactIfWorthwhile()
            return .frame(frame)
        }
    }

    /// The next complete frame, skipping literal announcements (for a client reading responses,
    /// where `{n}` never needs an answer).
    public mutating func nextFrame() throws(IMAPParseError) -> Frame? {
        while let event = try next() {
            switch event {
            case .frame(let frame): return frame
            case .synchronizingLiteral: continue
            }
        }
        return nil
    }

    private func findNewline(from start: Int) -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBufferPointer { pointer -> Int? in
            guard let base = pointer.baseAddress else { return nil }
            guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), pointer.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// `{n}`, `{n+}`, `{n-}` or `~{n}` right before the CRLF (or LF) at `newline`.
    private func literalAnnouncement(endingAt newline: Int) throws(IMAPParseError) -> (Int, Bool)? {
        var position = newline - 1
        if position >= lineStart && buffer[position] == UInt8(ascii: "\r") { position -= 1 }
        guard position > lineStart, buffer[position] == UInt8(ascii: "}") else { return nil }
        position -= 1
        var synchronizing = true
        if buffer[position] == UInt8(ascii: "+") || buffer[position] == UInt8(ascii: "-") {
            synchronizing = false
            position -= 1
        }
        let digitsEnd = position + 1
        while position >= lineStart && isDigit(buffer[position]) { position -= 1 }
        guard position >= lineStart, buffer[position] == UInt8(ascii: "{"), position + 1 < digitsEnd else { return nil }
        guard digitsEnd - (position + 1) <= 18 else {
            throw limitError(.literalTooLarge, "a literal whose size has more than 18 digits")
        }
        var size = 0
        for index in (position + 1)..<digitsEnd { size = size * 10 + Int(buffer[index] - 0x30) }
        return (size, synchronizing)
    }

    private mutating func compactIfWorthwhile() {
        if frameStart == buffer.count {
            consumedBeforeBuffer += buffer.count
            buffer.removeAll(keepingCapacity: true)
            frameStart = 0
            scanIndex = 0
            lineStart = 0
        } else if frameStart > 64 * 1024 && frameStart > buffer.count / 2 {
            dropFramedBytes()
        }
    }

    /// Removes the bytes before the current frame from `buffer`.
    private mutating func dropFramedBytes() {
        consumedBeforeBuffer += frameStart
        buffer.removeSubrange(0..<frameStart)
        scanIndex -= frameStart
        lineStart -= frameStart
        frameStart = 0
    }

    /// Builds the error for a broken limit and arranges for the offending frame to be thrown
    /// away, so the next `next()` starts with the following command or response.
    ///
    /// - Parameter skipping: nil when the current line has not ended yet (discard up to its LF);
    ///   otherwise the line has been scanned and this many literal bytes follow that the peer
    ///   sends without waiting (0 for a synchronizing literal, which a refusal stops).
    private mutating func refuse(_ code: IMAPParseError.Code, _ message: String, skipping: Int?) -> IMAPParseError {
        let error = limitError(code, message)
        refusedFramePrefix = Array(buffer[frameStart..<min(buffer.count, frameStart + 64)])
        if let skipping {
            frameStart = scanIndex
            lineStart = scanIndex
            if skipping > 0 {
                discardRemaining = skipping
                discardingLine = true  // the rest of the command line after the literal goes too
            }
        } else {
            scanIndex = buffer.count
            frameStart = buffer.count
            lineStart = buffer.count
            discardingLine = true
        }
        literalRemaining = 0
        compactIfWorthwhile()
        return error
    }

    /// Throws away refused bytes; returns false when more bytes are needed to finish.
    private mutating func skipDiscarded() -> Bool {
        if discardRemaining > 0 {
            let available = buffer.count - frameStart
            let skipped = min(available, discardRemaining)
            discardRemaining -= skipped
            frameStart += skipped
            scanIndex = frameStart
            lineStart = frameStart
            if discardRemaining > 0 {
                compactIfWorthwhile()
                return false
            }
        }
        if discardingLine {
            guard let newline = findNewline(from: frameStart) else {
                frameStart = buffer.count
                scanIndex = buffer.count
                lineStart = buffer.count
                compactIfWorthwhile()
                return false
            }
            discardingLine = false
            frameStart = newline + 1
            scanIndex = frameStart
            lineStart = frameStart
        }
        compactIfWorthwhile()
        return true
    }

    private func limitError(_ code: IMAPParseError.Code, _ message: String) -> IMAPParseError {
        let end = min(buffer.count, frameStart + 80)
        return IMAPParseError(
            code: code, message: message, offset: consumedBeforeBuffer + frameStart,
            excerpt: IMAPParseError.excerpt(of: Array(buffer[frameStart..<end]), around: 0))
    }
}
