import MailMIME

/// Decodes RFC 2047 encoded words in header text (`=?utf-8?q?S=C3=B8ren?=` -> `Søren`).
///
/// The one place the CLI calls MailMIME's decoder, so the dependency is easy to see and swap.
enum HeaderText {
    static func decode(_ text: String) -> String { EncodedWords.decode(text) }
}
