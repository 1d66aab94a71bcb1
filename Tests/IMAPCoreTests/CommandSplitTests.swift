import IMAPCore
import TestSupport
import Testing

@Suite(.cpuBound) struct CommandSplitTests {
    /// 20,000 scattered UIDs (a fixed pseudo-random walk with gaps of 1 to 7).
    static let scatteredUIDs: [UInt32] = {
        var uids: [UInt32] = []
        var state: UInt32 = 12345
        var uid: UInt32 = 0
        while uids.count < 20_000 {
            state = state &* 1_103_515_245 &+ 12345
            uid += 1 + (state >> 16) % 7
            uids.append(uid)
        }
        return uids
    }()

    static func firstLine(of command: TaggedCommand) -> [UInt8] {
        let bytes = CommandEncoder.encode(command, options: .init(literalMode: .literalPlus)).flatMap(\.bytes)
        let end = bytes.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
        return Array(bytes[..<end])
    }

    @Test(arguments: [
        Command.uidFetch(SequenceSet(numbers: scatteredUIDs), [.uid, .flags], modifiers: [.changedSince(5)]),
        .uidStore(
            SequenceSet(numbers: scatteredUIDs), unchangedSince: 9, StoreFlags(.add, silent: true, flags: [.seen])),
        .uidCopy(SequenceSet(numbers: scatteredUIDs), "Archive/2024"),
        .uidMove(SequenceSet(numbers: scatteredUIDs), "Trash"),
        .uidExpunge(SequenceSet(numbers: scatteredUIDs)),
        .fetch(SequenceSet(numbers: scatteredUIDs), [.flags]),
        .store(SequenceSet(numbers: scatteredUIDs), StoreFlags(.remove, flags: [.flagged])),
    ])
    func aHugeSetIsSplitIntoLinesUnderTheLimit(command: Command) throws {
        let original = try #require(command.messageSet)
        #expect(original.ranges.count > 10_000)
        let parts = command.split(maximumLineLength: 8000)
        #expect(parts.count > 10)
        var covered: [UInt32] = []
        for (position, part) in parts.enumerated() {
            let tagged = TaggedCommand(tag: "A\(100_000 + position)", command: part)
            let line = Self.firstLine(of: tagged)
            #expect(line.count <= 8000)
            if position < parts.count - 1 { #expect(line.count > 7900, "parts are filled, not cut short") }
            #expect(part.replacingMessageSet(with: SequenceSet(1)) == command.replacingMessageSet(with: SequenceSet(1)))
            covered += try #require(part.messageSet?.numbers)
            // What a server sees is what was meant.
            #expect(
                try CommandRoundTripTests.parsedCommands(
                    CommandEncoder.encode(tagged, options: .init()).flatMap(\.bytes)) == [tagged])
        }
        #expect(covered == Self.scatteredUIDs, "the parts cover exactly the same UIDs, in order, once each")
    }

    @Test func aSetThatFitsStaysOneCommand() {
        let command = Command.uidFetch(SequenceSet(numbers: [1, 2, 3, 9]), [.flags])
        #expect(command.split(maximumLineLength: 100) == [command])
        #expect(
            Command.uidFetch(.lastSearchResult, [.flags]).split(maximumLineLength: 10) == [
                .uidFetch(.lastSearchResult, [.flags])
            ])
        #expect(Command.noop.split(maximumLineLength: 1) == [.noop])
    }

    @Test func theTagLengthIsReserved() {
        let command = Command.uidFetch(SequenceSet(numbers: stride(from: 1, through: 400, by: 2)), [.flags])
        // "t SP UID FETCH  (FLAGS) CRLF" leaves room for the set.
        for part in command.split(maximumLineLength: 200, tagLength: 10) {
            #expect(Self.firstLine(of: TaggedCommand(tag: "0123456789", command: part)).count <= 200)
        }
        #expect(
            command.split(maximumLineLength: 200, tagLength: 10).count
                < command.split(maximumLineLength: 200, tagLength: 100).count)
    }
}
