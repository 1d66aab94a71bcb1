import IMAPCore
import Testing

/// `Redaction.redactCredentials(in:)`, for bytes whose command is not known (a frame a parser
/// refused): a LOGIN or AUTHENTICATE keeps its tag and verb, and nothing after them shows, not
/// even what its literals carried.
@Suite struct RedactionTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        let bytes: String
        let shown: String
        var testDescription: String { bytes.debugDescription }
    }

    static let fixtures: [Fixture] = [
        Fixture(bytes: "a LOGIN bob hunter2\r\n", shown: "a LOGIN ***\r\n"),
        Fixture(bytes: "a LOGIN {3}\r\nbob {7}\r\nhunter2\r\n", shown: "a LOGIN ***\r\n"),
        Fixture(bytes: "a login {3+}\r\nbob {7+}\r\nhunter2 extra\r\nb NOOP\r\n", shown: "a LOGIN ***\r\nb NOOP\r\n"),
        Fixture(bytes: "a  LOGIN bob hunter2\r\n", shown: "a LOGIN ***\r\n"),
        Fixture(bytes: "a\tLOGIN\tbob\thunter2\r\n", shown: "a LOGIN ***\r\n"),
        Fixture(bytes: "a LOGIN bob {7}\r\nhun\r\nr2\r\n", shown: "a LOGIN ***\r\n"),
        Fixture(bytes: "a AUTHENTICATE PLAIN {16}\r\nAGJvYgBodW50ZXIy\r\n", shown: "a AUTHENTICATE PLAIN ***\r\n"),
        Fixture(
            bytes: "a AUTHENTICATE PLAIN\r\nAGJvYgBodW50ZXIy\r\nb NOOP\r\n",
            shown: "a AUTHENTICATE PLAIN\r\n***\r\nb NOOP\r\n"),
        Fixture(bytes: "a SELECT {5}\r\nINBOX\r\n", shown: "a SELECT {5}\r\nINBOX\r\n"),
    ]

    @Test(arguments: fixtures) func hidesEveryChunkOfACredentialCommand(_ fixture: Fixture) {
        let shown = Redaction.redactCredentials(in: Array(fixture.bytes.utf8))
        #expect(String(decoding: shown, as: UTF8.self) == fixture.shown)
    }
}
