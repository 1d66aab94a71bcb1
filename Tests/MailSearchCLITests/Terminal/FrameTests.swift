import MailSearchCLI
import TestSupport
import Testing

/// Frames measured in terminal columns (CJK and emoji take two), cut without splitting a wide
/// character, mail text unable to reach the terminal as control sequences, and the writer
/// rewriting only what changed.
@Suite(.hangGuard) struct FrameTests {
    @Test(arguments: [
        ("plain", "abc", 3),
        ("CJK", "会議の議事録", 12),
        ("emoji", "📌 pinned", 9),
        ("accents", "Søren Kierkegaard", 17),
        ("combining mark", "e\u{301}", 1),
        ("mixed", "Re: 会議 📌", 11),
    ])
    func widthInColumns(name: String, text: String, columns: Int) {
        #expect(FrameLine(text).width == columns, "\(name)")
    }

    @Test func cuttingNeverSplitsAWideCharacter() {
        let line = FrameLine("会議の議事録")
        let cut = line.truncated(to: 5)
        #expect(cut.text == "会議")
        #expect(cut.width == 4)
        let fitted = line.fitted(to: 5)
        #expect(fitted.text == "会議 ")
        #expect(fitted.width == 5)
        let ellipsis = line.truncated(to: 7, ellipsis: true)
        #expect(ellipsis.text == "会議の…")
        #expect(ellipsis.width == 7)
        #expect(FrameLine("short").truncated(to: 10, ellipsis: true).text == "short")
    }

    @Test func cuttingKeepsEachSpansStyle() {
        var line = FrameLine()
        line.append("Bold ", .bold)
        line.append("dim text", .dim)
        let cut = line.truncated(to: 8)
        #expect(cut.spans == [Span(text: "Bold ", style: .bold), Span(text: "dim", style: .dim)])
    }

    @Test func mailTextCannotSendEscapeSequences() {
        let line = FrameLine("Subject \u{1B}[2J\u{1B}]0;owned\u{07} end\u{9B}")
        #expect(!line.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(line.text == "Subject  [2J ]0;owned  end ")
    }

    @Test func aFrameHasExactlyItsRowsEachWithinItsWidth() {
        let frame = Frame(
            size: TerminalSize(width: 6, height: 3),
            lines: [FrameLine("one"), FrameLine("a long line"), FrameLine("three"), FrameLine("four")])
        #expect(frame.lines.count == 3)
        #expect(frame.lines.map(\.text) == ["one", "a long", "three"])
        #expect(Frame(size: TerminalSize(width: 6, height: 3), lines: [FrameLine("x  ")]).text == "x\n\n")
    }

    @Test func theWriterRewritesOnlyChangedRows() {
        let size = TerminalSize(width: 10, height: 3)
        var writer = FrameWriter(colors: true)
        let first = Frame(size: size, lines: [FrameLine("one"), FrameLine("two"), FrameLine("three")])
        let full = writer.update(to: first)
        #expect(full.hasPrefix(ANSI.reset + ANSI.clearScreen))
        for row in 0..<3 { #expect(full.contains(ANSI.moveTo(row: row, column: 0))) }

        let second = Frame(size: size, lines: [FrameLine("one"), FrameLine("TWO"), FrameLine("three")])
        let update = writer.update(to: second)
        #expect(!update.contains(ANSI.moveTo(row: 0, column: 0)))
        #expect(update.contains(ANSI.moveTo(row: 1, column: 0) + TextStyle.plain.sequence(colors: true) + "TWO"))
        #expect(!update.contains(ANSI.moveTo(row: 2, column: 0)))
        #expect(!update.contains(ANSI.clearScreen))

        #expect(writer.update(to: second).isEmpty, "nothing changed, nothing written")

        writer.invalidate()
        #expect(writer.update(to: second).contains(ANSI.clearScreen))

        let resized = Frame(size: TerminalSize(width: 12, height: 3), lines: second.lines)
        #expect(writer.update(to: resized).contains(ANSI.clearScreen), "a new size redraws everything")
    }

    @Test func aFullWidthRowIsNotErasedFromItsLastColumn() {
        var writer = FrameWriter(colors: false)
        let output = writer.update(
            to: Frame(size: TerminalSize(width: 4, height: 2), lines: [FrameLine("abcd"), FrameLine("ab")]))
        #expect(output.contains("abcd" + ANSI.reset + ANSI.moveTo(row: 1, column: 0)))
        #expect(output.contains("ab" + ANSI.reset + ANSI.clearToEndOfLine))
    }

    @Test func noColoursKeepsAttributesOnly() {
        var line = FrameLine()
        line.append("●", TextStyle.plain.colored(.blue))
        line.append(" selected", TextStyle.reverse.colored(.red))
        let frame = Frame(size: TerminalSize(width: 20, height: 1), lines: [line])
        var colored = FrameWriter(colors: true)
        let withColors = colored.update(to: frame)
        #expect(withColors.contains("\u{1B}[0;34m●"))
        #expect(withColors.contains("\u{1B}[0;7;31m selected"))
        var plain = FrameWriter(colors: false)
        let without = plain.update(to: frame)
        #expect(without.contains("\u{1B}[0m●"))
        #expect(without.contains("\u{1B}[0;7m selected"))
        #expect(!without.contains(";3"))
    }

    @Test func theCursorShowsWhereTheFrameSaysAndHidesOtherwise() {
        let size = TerminalSize(width: 10, height: 2)
        var writer = FrameWriter(colors: false)
        let typing = writer.update(
            to: Frame(size: size, lines: [FrameLine("Search: a")], cursor: Frame.Position(row: 0, column: 9)))
        #expect(typing.hasSuffix(ANSI.moveTo(row: 0, column: 9) + ANSI.showCursor))
        let browsing = writer.update(to: Frame(size: size, lines: [FrameLine("Search: a")]))
        #expect(browsing.hasSuffix(ANSI.hideCursor))
    }
}
