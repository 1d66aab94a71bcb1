/// HTML laid out as plain text for a person to read, like `w3m -dump` or `lynx -dump` without
/// the column layout: what a mail reader shows of an HTML-only message.
///
/// - Paragraphs, headings, `<pre>`, lists and quotes are set apart by a blank line; a `<div>`, a
///   table, a table row, a list item, a `<br>` start a new line; table cells are two spaces apart.
/// - List items start with `• `, or their number (`1. `) in an `<ol>`; nested lists are
///   indented; `<blockquote>` lines start with `> `; `<hr>` is a line of dashes.
/// - Inside `<pre>` white space is kept; elsewhere each run of it is one space, and no line
///   ends with spaces.
/// - A link is `text <url>`, unless its text already is the URL (or the address of a `mailto:`);
///   an image is `[alt]` (none without alt text).
/// - Character references are decoded, a no-break space is a space; `<script>`, `<style>`,
///   `<title>` (what a `<head>` holds that could show) and comments are left out.
/// - The result has `\n` line breaks and ends with one (it is "" when there is no text).
///
/// Linear in the size of the HTML: one pass of ``HTMLTokenizer``, each token fed to this state
/// machine, which appends to one buffer.
///
/// ```
/// HTMLReadableText.text(of: "<h1>News</h1><p>See <a href=\"https://x.example/a\">this</a><br>Bye</p>")
/// // "News\n\nSee this <https://x.example/a>\nBye\n"
/// ```
public struct HTMLReadableText {
    /// The text a person reads of `html`.
    public static func text(of html: String) -> String {
        let input = Array(html.utf8)
        var tokenizer = HTMLTokenizer(input)
        var layout = HTMLReadableText(capacity: input.count)
        while let token = tokenizer.next() { layout.consume(token) }
        return layout.finish()
    }

    /// An open list: whether it is numbered, the next number, the width of its item marker.
    private struct List {
        var isOrdered: Bool
        var nextNumber: Int
        var markerWidth = 0
    }

    /// An open link: where it goes and where its text starts in the output.
    private struct Link {
        var url: String
        var textStart: Int
    }

    /// The most columns that quote markers and list indentation take, so that hostile nesting
    /// cannot make every line long.
    private static let deepestPrefix = 40

    private var output: [UInt8] = []
    /// Line breaks owed before the next text: 1 ends the line, 2 leaves a blank line.
    private var pendingBreaks = 0
    /// Spaces owed before the next text on the same line (white space, a table cell).
    private var pendingSpaces = 0
    /// Whether the current line has text (not just its prefix).
    private var lineHasText = false
    private var quoteDepth = 0
    /// The least quote depth since the pending breaks were asked for: the blank lines between a
    /// quote and the text around it are not part of the quote.
    private var breakQuoteDepth = 0
    private var preDepth = 0
    /// Right after `<pre>`, where a line break is not content (HTML drops it).
    private var atPreStart = false
    private var lists: [List] = []
    /// The marker (`• `, `3. `) the next line starts with: a list item just opened.
    private var pendingMarker: [UInt8]?
    /// The open link (at most one).
    private var links: [Link] = []
    /// Cells seen in the current table row.
    private var cellsInRow = 0

    private init(capacity: Int) { output.reserveCapacity(capacity) }

    // MARK: Events

    /// Feeds one token.
    private mutating func consume(_ token: HTMLToken) {
        switch token {
        case .text(let bytes):
            appendText(bytes)
        case .startTag(let tag):
            start(tag)
        case .endTag(let name):
            end(name)
        }
    }

    private mutating func start(_ tag: HTMLTag) {
        switch tag.name {
        case "br":
            lineBreak()
        case "p", "h1", "h2", "h3", "h4", "h5", "h6", "dl", "figure", "address":
            requestBreaks(2)
        case "pre":
            requestBreaks(2)
            preDepth += 1
            atPreStart = true
        case "blockquote":
            requestBreaks(2)
            quoteDepth += 1
        case "ul", "ol", "menu":
            requestBreaks(lists.isEmpty ? 2 : 1)
            let start = tag.name == "ol" ? tag.attribute("start").flatMap { Int($0) } ?? 1 : 1
            lists.append(List(isOrdered: tag.name == "ol", nextNumber: start))
        case "li":
            requestBreaks(1)
            guard !lists.isEmpty else {
                pendingMarker = Array("• ".utf8)
                return
            }
            let marker: String
            if lists[lists.count - 1].isOrdered {
                marker = "\(lists[lists.count - 1].nextNumber). "
                lists[lists.count - 1].nextNumber += 1
            } else {
                marker = "• "
            }
            lists[lists.count - 1].markerWidth = marker.unicodeScalars.count
            pendingMarker = Array(marker.utf8)
        case "table":
            requestBreaks(1)
        case "tr":
            requestBreaks(1)
            cellsInRow = 0
        case "td", "th":
            if cellsInRow > 0, lineHasText, pendingBreaks == 0 { pendingSpaces = max(pendingSpaces, 2) }
            cellsInRow += 1
        case "hr":
            requestBreaks(2)
            appendVisible(Array(String(repeating: "-", count: 20).utf8))
            requestBreaks(2)
        case "div", "section", "article", "header", "footer", "nav", "aside", "main", "center", "dt", "dd",
            "figcaption", "caption", "form", "fieldset", "details", "summary", "tbody", "thead", "tfoot":
            requestBreaks(1)
        case "a":
            // Links do not nest: a new one ends the open one (so each output byte is in at most
            // one link's text, and comparing texts with URLs stays linear).
            if let open = links.popLast() { endLink(open) }
            let url = (tag.attribute("href") ?? "").trimmingASCIISpaces
            links.append(Link(url: url, textStart: output.count))
        case "img":
            guard let alt = tag.attribute("alt")?.trimmingASCIISpaces, !alt.isEmpty else { return }
            appendText(Array(("[" + alt + "]").utf8)[...], decodingReferences: false)
        default:
            break
        }
    }

    private mutating func end(_ name: String) {
        switch name {
        case "p", "h1", "h2", "h3", "h4", "h5", "h6", "dl", "figure", "address":
            requestBreaks(2)
        case "pre":
            requestBreaks(2)
            preDepth = max(0, preDepth - 1)
        case "blockquote":
            requestBreaks(2)
            quoteDepth = max(0, quoteDepth - 1)
        case "ul", "ol", "menu":
            if !lists.isEmpty { lists.removeLast() }
            pendingMarker = nil
            requestBreaks(lists.isEmpty ? 2 : 1)
        case "li", "table", "tr", "div", "section", "article", "header", "footer", "nav", "aside", "main", "center",
            "dt", "dd", "figcaption", "caption", "form", "fieldset", "details", "summary", "tbody", "thead", "tfoot":
            requestBreaks(1)
        case "a":
            guard let link = links.popLast() else { return }
            endLink(link)
        default:
            break
        }
    }

    /// After a link's text: ` <url>`, unless the text is the URL, the URL is only a place in
    /// this document or a script, or there is no text.
    private mutating func endLink(_ link: Link) {
        let url = link.url
        let lowercasedURL = url.lowercased()
        guard !url.isEmpty, !url.hasPrefix("#"), !lowercasedURL.hasPrefix("javascript:"), link.textStart < output.count
        else { return }
        let text = String(decoding: output[link.textStart...], as: UTF8.self).trimmingASCIISpaces
        guard !text.isEmpty, Self.comparable(text) != Self.comparable(url) else { return }
        let spacesAfterText = pendingSpaces  // white space in the link's text, before it ended
        pendingSpaces = max(pendingSpaces, 1)
        appendVisible(Array("<\(url)>".utf8))
        pendingSpaces = spacesAfterText
    }

    /// A URL or link text as a person compares them: without `mailto:`, `http://`, `https://`,
    /// a trailing `/`, or case.
    private static func comparable(_ text: String) -> String {
        var result = Substring(text.lowercased())
        for scheme in ["mailto:", "https://", "http://"] where result.hasPrefix(scheme) {
            result = result.dropFirst(scheme.count)
        }
        while result.hasSuffix("/") { result = result.dropLast() }
        return String(result)
    }

    // MARK: Output

    /// Asks for `count` line breaks before the next text (2: a blank line); breaks asked for
    /// together do not add up.
    private mutating func requestBreaks(_ count: Int) {
        guard !output.isEmpty else { return }
        breakQuoteDepth = pendingBreaks == 0 ? quoteDepth : min(breakQuoteDepth, quoteDepth)
        pendingBreaks = max(pendingBreaks, count)
        pendingSpaces = 0
    }

    /// `<br>`: ends the line, and one more makes a blank line (at most two in a row).
    private mutating func lineBreak() {
        guard !output.isEmpty else { return }
        breakQuoteDepth = pendingBreaks == 0 ? quoteDepth : min(breakQuoteDepth, quoteDepth)
        pendingBreaks = lineHasText || pendingBreaks > 0 ? min(pendingBreaks + 1, 3) : 1
        pendingSpaces = 0
    }

    /// Character data: references decoded, white space collapsed outside `<pre>`.
    private mutating func appendText(_ bytes: ArraySlice<UInt8>, decodingReferences: Bool = true) {
        var index = bytes.startIndex
        var decoded: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            if decodingReferences, byte == UInt8(ascii: "&") {
                decoded.removeAll(keepingCapacity: true)
                let array = Array(bytes[(index + 1)..<min(bytes.endIndex, index + 12)])
                var referenceIndex = 0
                HTMLText.decodeReference(array, at: &referenceIndex, into: &decoded)
                index += 1 + referenceIndex
                for decodedByte in decoded { appendCharacterByte(decodedByte) }
                continue
            }
            appendCharacterByte(byte)
            index += 1
        }
    }

    private mutating func appendCharacterByte(_ byte: UInt8) {
        if preDepth > 0 {
            defer { atPreStart = false }
            if byte == 0x0A, atPreStart { return }
            if byte == 0x0A {
                if pendingBreaks == 0 { breakQuoteDepth = quoteDepth }
                pendingBreaks += 1
                lineHasText = false
                pendingSpaces = 0
                return
            }
            if byte == 0x0D { return }
        } else if HTMLTokenizer.isSpace(byte) {
            if lineHasText, pendingBreaks == 0 { pendingSpaces = max(pendingSpaces, 1) }
            return
        }
        startWriting()
        output.append(byte)
    }

    /// Appends `bytes` as they are (no references, no white space rules).
    private mutating func appendVisible(_ bytes: [UInt8]) {
        startWriting()
        output.append(contentsOf: bytes)
    }

    /// Before text: the line breaks owed, then the line's prefix (quote markers, list
    /// indentation, an item's marker) or the spaces owed.
    private mutating func startWriting() {
        if pendingBreaks > 0 || !lineHasText {
            if !output.isEmpty {
                let breaks = max(pendingBreaks, lineHasText ? 1 : 0)
                for number in 0..<breaks {
                    output.append(0x0A)
                    // A blank line inside a quote still shows the quote.
                    if number < breaks - 1 {
                        appendQuotePrefix(depth: min(breakQuoteDepth, quoteDepth), trailingSpace: false)
                    }
                }
            }
            pendingBreaks = 0
            pendingSpaces = 0
            appendQuotePrefix(depth: quoteDepth, trailingSpace: true)
            appendListIndentation()
            lineHasText = true
        } else if pendingSpaces > 0 {
            output.append(contentsOf: repeatElement(0x20, count: pendingSpaces))
            pendingSpaces = 0
        }
    }

    private mutating func appendQuotePrefix(depth quoteDepth: Int, trailingSpace: Bool) {
        let depth = min(quoteDepth, Self.deepestPrefix / 2)
        for level in 0..<depth {
            output.append(UInt8(ascii: ">"))
            if trailingSpace || level < depth - 1 { output.append(0x20) }
        }
    }

    /// The indentation of the enclosing lists' items, then this item's marker on its first line
    /// or as many spaces after it.
    private mutating func appendListIndentation() {
        guard !lists.isEmpty || pendingMarker != nil else { return }
        var indentation = 0
        for list in lists.dropLast().suffix(Self.deepestPrefix / 2) { indentation += max(2, list.markerWidth) }
        indentation = min(indentation, Self.deepestPrefix)
        output.append(contentsOf: repeatElement(0x20, count: indentation))
        if let marker = pendingMarker {
            output.append(contentsOf: marker)
            pendingMarker = nil
        } else if let innermost = lists.last {
            output.append(contentsOf: repeatElement(0x20, count: innermost.markerWidth))
        }
    }

    /// The text: no-break spaces as spaces, no spaces at line ends, one final line break.
    private func finish() -> String {
        var result: [UInt8] = []
        result.reserveCapacity(output.count + 1)
        var index = 0
        while index < output.count {
            let byte = output[index]
            if byte == 0xC2, index + 1 < output.count, output[index + 1] == 0xA0 {
                result.append(0x20)
                index += 2
                continue
            }
            if byte == 0x0A {
                while let last = result.last, last == 0x20 || last == 0x09 { result.removeLast() }
            }
            result.append(byte)
            index += 1
        }
        while let last = result.last, last == 0x20 || last == 0x09 || last == 0x0A { result.removeLast() }
        if !result.isEmpty { result.append(0x0A) }
        return String(decoding: result, as: UTF8.self)
    }
}

extension String {
    /// The string without ASCII white space at either end.
    fileprivate var trimmingASCIISpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace || $0.value > 0x7F }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace || $0.value > 0x7F })
        else { return "" }
        return String(scalars[first...last])
    }
}
