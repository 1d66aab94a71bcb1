// memchr: the boundary scan's hot loop finds line ends with libc's vectorised search.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds the MIME tree of a message (RFC 2045, RFC 2046 section 5) from its bytes.
///
/// Parts are found line by line, the way RFC 2046 5.1.1 describes and Dovecot implements it:
/// - a line that starts with `--` and the boundary of any enclosing multipart ends the current
///   part, even inside a header or an encapsulated message; the longest matching boundary wins, and
///   anything after it on the line (transport padding or not) is ignored ("it is sufficient that
///   the boundary appear in its entirety following the CRLF");
/// - the line break before a boundary line belongs to the boundary, not to the part;
/// - `--boundary--` closes the multipart; what follows is its epilogue; a multipart whose close
///   delimiter is missing ends where its parent's next boundary is, or at the end of the message;
/// - a part without a header (a boundary line, then an empty line) is `text/plain`, or
///   `message/rfc822` inside `multipart/digest`;
/// - Content-* fields count only in a MIME entity: one with MIME-Version or Content-Type, or a
///   part of a multipart (RFC 2045 section 4).
struct MIMEParser {
    let bytes: [UInt8]
    let endIndex: Int
    /// The boundaries of the enclosing multiparts, outermost first.
    var boundaries: [[UInt8]] = []
    var partCount = 0

    /// Deeper nesting is read as a single part, so a hostile message cannot exhaust the stack.
    static let maximumDepth = 100
    /// More parts than this are not split further.
    static let maximumParts = 10_000

    /// Where a boundary line stopped the parsing of a part.
    struct Stop {
        /// Which entry of `boundaries` matched.
        var boundaryIndex: Int
        /// Where the boundary line starts.
        var lineStart: Int
        /// Where the enclosing parts end (before the line break that belongs to the boundary).
        var enclosingEnd: Int
        /// Whether it is a close delimiter (`--boundary--`).
        var isClose: Bool
        /// Where the line after the boundary line starts.
        var nextLine: Int
    }

    init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.endIndex = range.upperBound
    }

    // MARK: Entities

    // entity = header [CRLF body]   ; RFC 2045, RFC 5322 message = fields [CRLF body]
    /// The part starting at `start`, and the boundary line that ended it (nil at the end of the
    /// message).
    mutating func parseEntity(at start: Int, isMultipartChild: Bool, inDigest: Bool, depth: Int) -> (MIMEPart, Stop?) {
        partCount += 1
        var (header, bodyStart, headerStop, emptyLineBeforeBoundary) = parseHeader(at: start)
        var isMIME = isMultipartChild
        var contentTypeField: MIMEHeaderField?
        var transferEncodingToken: [UInt8]?
        for field in header.fields {
            if field.hasName("content-type") {
                isMIME = true
                if contentTypeField == nil { contentTypeField = field }
            } else if field.hasName("mime-version") {
                isMIME = true
            } else if transferEncodingToken == nil, field.hasName("content-transfer-encoding") {
                // The first well-formed one counts.
                transferEncodingToken = MIMESyntax.transferEncoding(field.rawValue)
            }
        }
        var transferEncoding = "7bit"
        if isMIME, let token = transferEncodingToken {
            transferEncoding = String(decoding: token, as: UTF8.self).lowercased()
        }

        var kind = MIMEPart.Kind.single
        var contentType: ContentType
        var boundary: [UInt8]?
        var isDigest = false
        if let field = contentTypeField {
            let syntax = MIMESyntax.mediaType(field.rawValue)
            let type = String(decoding: syntax.type, as: UTF8.self).lowercased()
            let subtype = syntax.subtype.map { String(decoding: $0, as: UTF8.self).lowercased() }
            contentType = ContentType(
                type: type, subtype: subtype ?? "", parameters: MIMESyntax.decodedParameters(syntax.recoveredParameters)
            )
            if type == "multipart", subtype != nil {
                kind = .multipart
                isDigest = subtype == "digest"
                boundary =
                    syntax.parameters.first { parameter in
                        parameter.name.count == 8
                            && String(decoding: parameter.name, as: UTF8.self).lowercased() == "boundary"
                    }?.value
            } else if type == "message", subtype == "rfc822" || subtype == "global" {
                kind = .message
            }
        } else if inDigest {
            contentType = .messageRFC822
            kind = .message
        } else {
            contentType = .textPlain
        }
        if depth >= Self.maximumDepth || partCount >= Self.maximumParts { kind = .single }
        if let emptyLine = emptyLineBeforeBoundary,
            kind != .multipart || !startsWithDashBoundary(at: bodyStart, boundary ?? [])
        {
            // The CRLF is the next delimiter's: no empty line ends this header, and the body is
            // empty ("--b\r\n\r\n--b" is a part with nothing in it). A multipart's own first
            // boundary right after its header is not such a line.
            header = MIMEHeader(fields: header.fields, byteRange: header.byteRange.lowerBound..<emptyLine)
            bodyStart = emptyLine
        }

        var part = MIMEPart(
            header: header, kind: kind, isMIME: isMIME, contentType: contentType, transferEncoding: transferEncoding,
            bodyRange: bodyStart..<bodyStart, lineCount: 0)
        if let headerStop {
            if kind == .message {
                // The header ran into a boundary: the encapsulated message is empty.
                let empty = MIMEPart(
                    header: MIMEHeader(fields: [], byteRange: bodyStart..<bodyStart), kind: .single, isMIME: false,
                    contentType: .textPlain, transferEncoding: "7bit", bodyRange: bodyStart..<bodyStart, lineCount: 0)
                part.encapsulatedMessage = MIMEMessage(bytes: bytes, byteRange: bodyStart..<bodyStart, root: empty)
            }
            return (part, headerStop)
        }

        let stop: Stop?
        switch kind {
        case .multipart:
            if let boundary {
                let (children, bodyEnd, multipartStop) = parseMultipart(
                    bodyStart: bodyStart, boundary: boundary, isDigest: isDigest, depth: depth)
                part.children = children
                part.bodyRange = bodyStart..<bodyEnd
                stop = multipartStop
            } else {
                let (bodyEnd, bodyStop) = scanBody(from: bodyStart)
                part.bodyRange = bodyStart..<bodyEnd
                stop = bodyStop
            }
        case .message:
            let (root, messageStop) = parseEntity(
                at: bodyStart, isMultipartChild: false, inDigest: false, depth: depth + 1)
            let bodyEnd = messageStop?.enclosingEnd ?? endIndex
            part.bodyRange = bodyStart..<bodyEnd
            part.encapsulatedMessage = MIMEMessage(bytes: bytes, byteRange: bodyStart..<bodyEnd, root: root)
            stop = messageStop
        case .single:
            let (bodyEnd, bodyStop) = scanBody(from: bodyStart)
            part.bodyRange = bodyStart..<bodyEnd
            stop = bodyStop
        }
        part.lineCount = countLineFeeds(in: part.bodyRange)
        return (part, stop)
    }

    // multipart-body := [preamble CRLF] dash-boundary transport-padding CRLF body-part
    //                   *encapsulation close-delimiter transport-padding [CRLF epilogue]
    // encapsulation := delimiter transport-padding CRLF body-part
    // delimiter := CRLF dash-boundary ; close-delimiter := delimiter "--" ; dash-boundary := "--" boundary
    /// The parts of a multipart body, where the body ends, and the enclosing boundary that ended it.
    private mutating func parseMultipart(
        bodyStart: Int, boundary: [UInt8], isDigest: Bool, depth: Int
    )
        -> ([MIMEPart], Int, Stop?)
    {
        boundaries.append(boundary)
        let own = boundaries.count - 1
        var children: [MIMEPart] = []
        var (_, stop) = scanBody(from: bodyStart)
        while let current = stop {
            guard current.boundaryIndex == own else {
                boundaries.removeSubrange(own...)
                return (children, current.enclosingEnd, current)
            }
            if current.isClose {
                boundaries.removeSubrange(own...)
                let (epilogueEnd, outerStop) = scanBody(from: current.nextLine)
                return (children, epilogueEnd, outerStop)
            }
            let (child, childStop) = parseEntity(
                at: current.nextLine, isMultipartChild: true, inDigest: isDigest, depth: depth + 1)
            children.append(child)
            stop = childStop
        }
        boundaries.removeSubrange(own...)
        return (children, endIndex, nil)
    }

    // MARK: Headers

    // fields = *field ; field = field-name ":" unstructured CRLF ; field-name = 1*ftext
    // obs-fields: white space before the colon, folding anywhere
    /// The header starting at `start`, where the body starts, the boundary line that ended
    /// the header early (a part of only header lines, or none), and where the empty line that
    /// ended it starts when a line matching an enclosing boundary follows it.
    ///
    /// A line without a colon counts as a field with that name and an empty value, as Dovecot
    /// reads it, so a message that starts with text keeps the text in its header.
    private func parseHeader(at start: Int) -> (MIMEHeader, Int, Stop?, Int?) {
        var fields: [MIMEHeaderField] = []
        var position = start
        var previousLineBreak = 0
        var field: (start: Int, nameRange: Range<Int>, valueStart: Int, valueEnd: Int, end: Int)?

        func finishField(clampedTo limit: Int = Int.max) {
            guard let current = field else { return }
            let end = min(current.end, limit)
            fields.append(
                MIMEHeaderField(
                    storage: bytes, byteRange: current.start..<max(current.start, end), nameRange: current.nameRange,
                    valueRange: current.valueStart..<min(current.valueEnd, max(current.valueStart, end))))
            field = nil
        }

        while position < endIndex {
            if !boundaries.isEmpty, bytes[position] == UInt8(ascii: "-"), let match = matchBoundary(at: position) {
                let headerEnd = position == start ? position : position - previousLineBreak
                finishField(clampedTo: headerEnd)
                let stop = Stop(
                    boundaryIndex: match.index, lineStart: position, enclosingEnd: position, isClose: match.isClose,
                    nextLine: match.nextLine)
                return (MIMEHeader(fields: fields, byteRange: start..<headerEnd), headerEnd, stop, nil)
            }
            let lineFeed = indexOfLineFeed(from: position)
            var contentEnd = lineFeed ?? endIndex
            if lineFeed != nil, contentEnd > position, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let next = lineFeed.map { $0 + 1 } ?? endIndex
            if contentEnd == position, lineFeed != nil {
                finishField()
                // An empty line right before an enclosing boundary line may be the CRLF of that
                // delimiter (RFC 2046 5.1.1) rather than the end of the header: the caller
                // decides, once it knows whether the line is the part's own first boundary.
                let beforeBoundary =
                    !boundaries.isEmpty && next < endIndex && bytes[next] == UInt8(ascii: "-")
                    && matchBoundary(at: next) != nil
                return (MIMEHeader(fields: fields, byteRange: start..<next), next, nil, beforeBoundary ? position : nil)
            }
            let first = bytes[position]
            if first == 0x20 || first == 0x09, field != nil {
                field?.valueEnd = contentEnd
                field?.end = next
            } else {
                finishField()
                var colon = position
                while colon < contentEnd, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
                var nameEnd = colon
                while nameEnd > position, bytes[nameEnd - 1] == 0x20 || bytes[nameEnd - 1] == 0x09 { nameEnd -= 1 }
                let valueStart = colon < contentEnd ? colon + 1 : contentEnd
                field = (position, position..<nameEnd, valueStart, contentEnd, next)
            }
            previousLineBreak = next - contentEnd
            position = next
        }
        finishField()
        return (MIMEHeader(fields: fields, byteRange: start..<endIndex), endIndex, nil, nil)
    }

    // MARK: Scanning

    /// Reads a body from `start` to the next boundary line of an enclosing multipart (or the
    /// end); returns where the body ends and the boundary line.
    private func scanBody(from start: Int) -> (Int, Stop?) {
        guard !boundaries.isEmpty else { return (endIndex, nil) }
        var position = start
        while position < endIndex {
            if bytes[position] == UInt8(ascii: "-"), let match = matchBoundary(at: position) {
                var end = position
                if position > start {
                    end -= 1
                    if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                }
                let stop = Stop(
                    boundaryIndex: match.index, lineStart: position, enclosingEnd: end, isClose: match.isClose,
                    nextLine: match.nextLine)
                return (end, stop)
            }
            guard let lineFeed = indexOfLineFeed(from: position) else { break }
            position = lineFeed + 1
        }
        return (endIndex, nil)
    }

    /// The boundary a line starting at `position` opens (`--boundary`), preferring the longest
    /// and then the innermost; nil when it is not a boundary line.
    /// Whether the line at `position` starts with `--boundary`.
    private func startsWithDashBoundary(at position: Int, _ boundary: [UInt8]) -> Bool {
        guard !boundary.isEmpty, position + 2 + boundary.count <= endIndex else { return false }
        return bytes[position] == UInt8(ascii: "-") && bytes[position + 1] == UInt8(ascii: "-")
            && bytes[(position + 2)..<(position + 2 + boundary.count)].elementsEqual(boundary)
    }

    private func matchBoundary(at position: Int) -> (index: Int, isClose: Bool, nextLine: Int)? {
        guard position + 1 < endIndex, bytes[position] == UInt8(ascii: "-"), bytes[position + 1] == UInt8(ascii: "-")
        else { return nil }
        let start = position + 2
        var best: Int?
        for index in boundaries.indices.reversed() {
            let boundary = boundaries[index]
            guard start + boundary.count <= endIndex, best.map({ boundaries[$0].count < boundary.count }) ?? true
            else { continue }
            var matches = true
            for offset in 0..<boundary.count where bytes[start + offset] != boundary[offset] {
                matches = false
                break
            }
            if matches { best = index }
        }
        guard let best else { return nil }
        let after = start + boundaries[best].count
        let isClose = after + 1 < endIndex && bytes[after] == UInt8(ascii: "-") && bytes[after + 1] == UInt8(ascii: "-")
        let nextLine = indexOfLineFeed(from: position).map { $0 + 1 } ?? endIndex
        return (best, isClose, nextLine)
    }

    /// The index of the next LF at or after `position`, nil when there is none.
    private func indexOfLineFeed(from position: Int) -> Int? {
        guard position < endIndex else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress,
                let found = memchr(base + position, 0x0A, endIndex - position)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The number of LFs in `range`.
    func countLineFeeds(in range: Range<Int>) -> Int {
        guard !range.isEmpty else { return 0 }
        return bytes.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var count = 0
            var position = range.lowerBound
            while position < range.upperBound,
                let found = memchr(base + position, 0x0A, range.upperBound - position)
            {
                count += 1
                position = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
            }
            return count
        }
    }
}
