import TestSupport
import Testing

/// The server's sessions run on threads of their own: it answers while every thread of the
/// process's cooperative pool is held by other work (a test process running many tests at once).
/// The pool is held in a process of its own (`test-probe`), where nothing else waits for it.
@Suite(.timeLimit(.minutes(2)))
struct SessionExecutorTests {
    @Test func theServerAnswersWhileTheCooperativePoolIsHeld() async throws {
        let output = try await TestProbe.run("mock-server-pool-held")
        #expect(output.hasPrefix("greeting: * OK"), "\(output)")
    }
}
