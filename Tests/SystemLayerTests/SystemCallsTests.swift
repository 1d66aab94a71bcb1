import SystemLayer
import TestSupport
import Testing

/// The system layer's pipes, poll and child processes: what their callers (the connections'
/// I/O threads, the terminal's key reader, the password command) count on.
@Suite(.hangGuard) struct SystemCallsTests {
    @Test func aSignalledWakeUpPipeIsReadyUntilDrained() throws {
        let pipe = try WakeUpPipe()
        defer { pipe.close() }
        #expect(try ReadinessPoll.wait([pipe.readEnd], milliseconds: 0) == [false])
        pipe.signal()
        pipe.signal()
        #expect(try ReadinessPoll.wait([pipe.readEnd], milliseconds: 0) == [true])
        try pipe.drain()
        #expect(try ReadinessPoll.wait([pipe.readEnd], milliseconds: 0) == [false])
    }

    @Test func readingAnEmptyNonBlockingPipeSaysItWouldBlock() throws {
        let pipe = try WakeUpPipe()
        defer { pipe.close() }
        var buffer = [UInt8](repeating: 0, count: 8)
        do {
            _ = try readSome(pipe.readEnd, into: &buffer)
            Issue.record("read an empty pipe")
        } catch {
            #expect(isWouldBlock(error.number), "\(error)")
            #expect(error.call == "read")
        }
        pipe.signal()
        #expect(try readSome(pipe.readEnd, into: &buffer) == 1)
    }

    @Test func aShellCommandsOutputAndStatusAreCaptured() throws {
        let outcome = try ChildProcess.runShell("printf 'one\\ntwo'; exit 3", environment: [], outputLimit: 1024)
        #expect(String(decoding: outcome.output, as: UTF8.self) == "one\ntwo")
        #expect(outcome.exitStatus == 3)
        #expect(outcome.signal == 0)
        #expect(!outcome.truncated)
    }

    @Test func outputPastTheLimitIsDroppedAndSaid() throws {
        let outcome = try ChildProcess.runShell("printf abcdef", environment: [], outputLimit: 4)
        #expect(outcome.output == Array("abcd".utf8))
        #expect(outcome.truncated)
    }

    @Test func theChildGetsOnlyTheEnvironmentGiven() throws {
        let outcome = try ChildProcess.runShell(
            "printf %s \"$ONLY-$HOME\"", environment: ["ONLY=given"], outputLimit: 1024)
        #expect(String(decoding: outcome.output, as: UTF8.self) == "given-")
    }

    @Test func aKilledChildReportsItsSignal() throws {
        let outcome = try ChildProcess.runShell("kill -TERM $$", environment: [], outputLimit: 1024)
        #expect(outcome.signal == 15)
    }
}
