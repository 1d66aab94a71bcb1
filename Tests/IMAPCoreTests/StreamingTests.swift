import IMAPCore
import TestSupport
import Testing

@Suite(.cpuBound) struct StreamingTests {
    @Test func sessionFedOneByteAtATimeGivesTheSameResponses() throws {
        let bytes = try Fixtures.dovecot("session.server.txt")
        let whole = try ResponseParser.parseAll(bytes)
        var parser = ResponseParser()
        var oneByOne: [Response] = []
        for byte in bytes {
            parser.append(CollectionOfOne(byte))
            while let response = try parser.next() { oneByOne.append(response) }
        }
        #expect(oneByOne.count == whole.count)
        #expect(oneByOne == whole)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test(arguments: [2, 3, 7, 100, 4096, 65536]) func anyChunkingGivesTheSameResponses(chunkSize: Int) throws {
        let bytes = try Fixtures.dovecot("fetch-bodystructure-2k.server.txt")
        let whole = try ResponseParser.parseAll(bytes)
        var parser = ResponseParser()
        var chunked: [Response] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunkSize)
            parser.append(bytes[start..<end])
            while let response = try parser.next() { chunked.append(response) }
            start = end
        }
        #expect(chunked == whole)
    }

    @Test(arguments: ["session.server.txt", "fetch-bodystructure-2k.server.txt"])
    func everyFixtureResponseRoundTripsThroughTheEncoder(file: String) throws {
        let responses = try ResponseParser.parseAll(try Fixtures.dovecot(file))
        var buffer = EncodeBuffer(options: .server)
        for response in responses { buffer.write(response) }
        #expect(try ResponseParser.parseAll(buffer.takeBytes()) == responses)
    }

    @Test func memoryStaysProportionalToOneResponse() throws {
        // 20,000 responses streamed in 64 KiB chunks: the parser never holds more than a chunk plus
        // one response, not yet parsed ...
        let bytes = try Fixtures.dovecot("fetch-envelope-20k.server.txt")
        var parser = ResponseParser()
        var largestBuffer = 0
        var largestStored = 0
        var start = 0
        var count = 0
        while start < bytes.count {
            let end = min(bytes.count, start + 65536)
            parser.append(bytes[start..<end])
            largestBuffer = max(largestBuffer, parser.bufferedByteCount)
            largestStored = max(largestStored, parser.storedByteCount)
            while try parser.next() != nil { count += 1 }
            start = end
        }
        #expect(count == 20001)
        #expect(bytes.count > 4 * 65536, "the stream is much larger than the bounds below")
        #expect(largestBuffer < 65536 + 4096)
        // ... and parsed bytes are dropped: at most 64 KiB of them wait for the next compaction.
        // (bufferedByteCount alone leaves them out, so it cannot tell.)
        #expect(largestStored < 2 * 65536 + 4096)
    }

    @Test func literalSplitAtEveryPosition() throws {
        let wire = Array("* 1 FETCH (BODY[] {11}\r\nHello\r\nWorld UID 3)\r\n* 2 EXISTS\r\n".utf8)
        let expected = try ResponseParser.parseAll(wire)
        #expect(expected.count == 2)
        for cut in 1..<wire.count {
            var parser = ResponseParser()
            var responses: [Response] = []
            parser.append(wire[..<cut])
            while let response = try parser.next() { responses.append(response) }
            parser.append(wire[cut...])
            while let response = try parser.next() { responses.append(response) }
            #expect(responses == expected, "cut at \(cut)")
        }
    }

    @Test func discardingBufferedBytesDropsAnInjectedResponse() throws {
        // STARTTLS: bytes that arrived with the OK must never be processed.
        var parser = ResponseParser()
        parser.append(Array("a OK Begin TLS\r\n* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] injected\r\n".utf8))
        #expect(
            try parser.next() == .tagged(TaggedResponse(tag: "a", status: .ok, text: ResponseText(text: "Begin TLS"))))
        #expect(parser.discardBufferedBytes() > 0)
        #expect(try parser.next() == nil)
        parser.append(Array("* 1 EXISTS\r\n".utf8))
        #expect(try parser.next() == .untagged(.exists(1)))
    }
}

@Suite struct LimitTests {
    @Test func overlongLineIsATypedErrorAndTheNextResponseStillParses() throws {
        var parser = ResponseParser(options: ParserOptions(maximumLineLength: 100))
        parser.append(Array(("* SEARCH " + String(repeating: "1 ", count: 100) + "\r\n* 3 EXISTS\r\n").utf8))
        do {
            _ = try parser.next()
            Issue.record("no error")
        } catch {
            #expect(error.code == .lineTooLong)
            #expect(error.message.contains("100"))
        }
        #expect(try parser.next() == .untagged(.exists(3)))
    }

    @Test func overlongLineIsReportedBeforeItsEndArrives() throws {
        var parser = ResponseParser(options: ParserOptions(maximumLineLength: 100))
        parser.append(Array(String(repeating: "x", count: 200).utf8))
        #expect(throws: IMAPParseError.self) { try parser.next() }
        parser.append(Array("yyy\r\n* 4 EXISTS\r\n".utf8))
        #expect(try parser.next() == .untagged(.exists(4)))
    }

    @Test func literalOverTheLimitIsATypedErrorAndIsSkipped() throws {
        var parser = ResponseParser(options: ParserOptions(maximumLiteralSize: 10))
        parser.append(Array("* 1 FETCH (BODY[] {20}\r\n01234567890123456789)\r\n* 5 EXISTS\r\n".utf8))
        do {
            _ = try parser.next()
            Issue.record("no error")
        } catch {
            #expect(error.code == .literalTooLarge)
        }
        #expect(try parser.next() == .untagged(.exists(5)))
    }

    @Test func nestingDeeperThanTheLimitIsATypedError() throws {
        let deep = String(repeating: "(", count: 30) + String(repeating: ")", count: 30)
        do {
            _ = try ResponseParser.parseAll(
                Array("* 1 FETCH (BODYSTRUCTURE \(deep))\r\n".utf8), options: ParserOptions(maximumNestingDepth: 20))
            Issue.record("no error")
        } catch {
            #expect(error.code == .nestingTooDeep)
        }
    }

    @Test func frameOverTheLimitIsATypedError() throws {
        var parser = ResponseParser(options: ParserOptions(maximumFrameSize: 64))
        parser.append(Array("* 1 FETCH (BODY[] {10}\r\n0123456789 BODY[1] {60}\r\n".utf8))
        do {
            _ = try parser.next()
            Issue.record("no error")
        } catch {
            #expect(error.code == .frameTooLarge)
        }
    }
}
