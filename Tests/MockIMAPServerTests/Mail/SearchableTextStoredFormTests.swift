import MockIMAPServer
import SearchSemantics
import TestSupport
import Testing

/// The local index keeps each message's search text in its stored form
/// (`SearchableText.encoded()`) and searches what it reads back: that must be the text itself.
@Suite(.hangGuard, .cpuBound) struct SearchableTextStoredFormTests {
    @Test(arguments: TrickyMessages.all.map(\.name))
    func theStoredFormReadsBackAsTheSameText(name: String) throws {
        let message = try #require(TrickyMessages.all.first { $0.name == name })
        let text = IndexedMessage(bytes: message.bytes).searchText
        let decoded = try #require(SearchableText(encoded: text.encoded()))
        #expect(decoded == text)
        #expect(decoded.allHeadersText == text.allHeadersText)
        for field in text.fields {
            #expect(decoded.headerText(field.name) == text.headerText(field.name))
        }
        // The header side alone: everything but the body's text.
        let header = try #require(SearchableText(header: text.encodedParts().header, body: nil))
        #expect(header.fields == text.fields && header.addressText == text.addressText)
        #expect(header.partHeadersText == text.partHeadersText && header.sentDate == text.sentDate)
        #expect(header.bodyText == "" && header.bodyTextWithoutAttachedHeaders == nil)
    }

    @Test func bytesThatAreNotAStoredFormAreRefused() throws {
        let text = IndexedMessage(bytes: Array("Subject: a\r\n\r\nbody\r\n".utf8)).searchText
        let encoded = text.encoded()
        #expect(SearchableText(encoded: Array(encoded.dropLast())) == nil)
        #expect(SearchableText(encoded: encoded + [0]) == nil)
        #expect(SearchableText(encoded: [9] + encoded.dropFirst()) == nil)
        #expect(SearchableText(encoded: []) == nil)
        let (header, body) = text.encodedParts()
        #expect(SearchableText(header: header, body: body + [0]) == nil)
        #expect(SearchableText(header: Array(header.dropLast()), body: nil) == nil)
    }
}
