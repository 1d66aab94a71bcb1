import IMAPCore
import TestSupport
import Testing

@Suite(.cpuBound) struct CommandStreamingTests {
    @Test func sessionFedOneByteAtATimeGivesTheSameEvents() throws {
        let bytes = try Fixtures.dovecot("session.client.txt")
        let whole = CommandTesting.outcomes(bytes)
        var parser = CommandParser()
        var oneByOne: [CommandOutcome] = []
        for byte in bytes {
            parser.append(CollectionOfOne(byte))
            oneByOne += CommandTesting.drain(&parser)
        }
        #expect(whole.count == 34)
        #expect(oneByOne == whole)
        #expect(parser.bufferedByteCount == 0)
        #expect(parser.mode == .command)
    }

    @Test(arguments: [2, 3, 5, 13, 64, 500])
    func anyChunkingGivesTheSameEvents(chunkSize: Int) throws {
        var stream: [UInt8] = []
        for command in CommandRoundTripTests.commands {
            stream += CommandEncoder.encode(command, options: .init()).flatMap(\.bytes)
            if command.command == .idle { stream += CommandEncoder.encodeIdleDone() }
        }
        let whole = CommandTesting.outcomes(stream)
        #expect(whole.contains(.event(.continuationNeeded(literalSize: 7))))
        #expect(whole.contains(.event(.idleDone)))
        #expect(!whole.contains { if case .refused = $0 { return true } else { return false } })
        var parser = CommandParser()
        var chunked: [CommandOutcome] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + chunkSize)
            parser.append(stream[start..<end])
            chunked += CommandTesting.drain(&parser)
            start = end
        }
        #expect(chunked == whole)
        let commands = chunked.compactMap { outcome -> TaggedCommand? in
            guard case .event(.command(let command)) = outcome else { return nil }
            return command
        }
        #expect(commands == CommandRoundTripTests.commands)
    }
}
