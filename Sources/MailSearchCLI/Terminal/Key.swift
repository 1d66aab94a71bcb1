/// One key press as a terminal in raw mode reports it (xterm and VT100 conventions, which tmux,
/// screen and every terminal emulator in use follow).
package enum Key: Hashable, Sendable {
    /// Text: a printable character (any script; a UTF-8 sequence decoded whole).
    case character(Character)
    /// Alt (Meta) with a printable character: ESC immediately followed by it.
    case alt(Character)
    /// Ctrl with a letter (`control("c")` is Ctrl-C, byte 0x03), except the ones below that
    /// have their own case (Tab is Ctrl-I, Enter is Ctrl-M).
    case control(Character)
    /// Return (CR) or line feed.
    case enter
    /// Tab.
    case tab
    /// Shift-Tab (`ESC [ Z`).
    case backTab
    /// Backspace (DEL 0x7F or BS 0x08).
    case backspace
    /// Escape on its own (no further byte followed it within the decoder's delay).
    case escape
    /// The cursor keys.
    case up, down, left, right
    /// Home, End, Page Up, Page Down, Insert, Delete (forward delete).
    case home, end, pageUp, pageDown, insert, delete
    /// A function key, F1 to F12.
    case function(Int)
    /// Text the terminal pasted (bracketed paste, `ESC [ 200 ~` ... `ESC [ 201 ~`, xterm's mode
    /// 2004): every byte between the markers, line breaks and escapes included, decoded as UTF-8.
    /// It is text, never keys: a newline in it is not Enter.
    case paste(String)
    /// An escape sequence this decoder does not know, as it came (without the leading ESC).
    case unknown([UInt8])
}
