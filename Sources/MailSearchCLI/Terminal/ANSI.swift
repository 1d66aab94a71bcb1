/// The escape sequences the terminal UI writes (ECMA-48 / VT100, with xterm's private modes,
/// which every terminal emulator and tmux understand).
package enum ANSI {
    /// Control Sequence Introducer.
    package static let csi = "\u{1B}["

    /// The alternate screen (`?1049h`, the shell's screen is kept aside), the cursor hidden
    /// (`?25l`), automatic wrapping off (`?7l`: writing the last column never scrolls), bracketed
    /// paste on (`?2004h`: pasted text comes between `ESC [ 200 ~` and `ESC [ 201 ~`, so a
    /// newline in it is not Enter), cleared.
    package static let enterFullScreen =
        csi + "?1049h" + csi + "?25l" + csi + "?7l" + csi + "?2004h" + csi + "H" + csi + "2J"
    /// Back to the normal screen with attributes reset, bracketed paste off, wrapping and the
    /// cursor on.
    package static let leaveFullScreen =
        csi + "0m" + csi + "?2004l" + csi + "?7h" + csi + "?25h" + csi + "?1049l"

    /// Clears the whole screen.
    package static let clearScreen = csi + "2J"
    /// Erases from the cursor to the end of the line.
    package static let clearToEndOfLine = csi + "K"
    /// Shows the cursor.
    package static let showCursor = csi + "?25h"
    /// Hides the cursor.
    package static let hideCursor = csi + "?25l"
    /// Resets every attribute.
    package static let reset = csi + "0m"

    /// Moves the cursor to `row`, `column` (both from 0).
    package static func moveTo(row: Int, column: Int) -> String { csi + "\(row + 1);\(column + 1)H" }
}
