import Dispatch
import TestSupport
import Testing

/// The CPU lane (`TestSupport.CPUBound`): a test of a `.cpuBound` suite runs on the lane,
/// each of its test cases too, and a test without the trait runs on the cooperative pool.
@Suite(.cpuBound)
struct CPULaneTests {
    @Test func aTestOfACPUBoundSuiteRunsOnTheLane() {
        #expect(CPULane.isCurrent)
        #expect(Test.current != nil)
    }

    @Test(arguments: [1, 2]) func everyTestCaseRunsOnTheLane(_ number: Int) async {
        #expect(CPULane.isCurrent)
        await Task.yield()
        #expect(CPULane.isCurrent)
    }

    /// A failed expectation on the lane is reported like anywhere (Swift Testing captures a
    /// backtrace for it, which walks the lane thread's stack).
    @Test func aFailureOnTheLaneIsReported() async {
        withKnownIssue("a failure recorded on purpose") { #expect(Bool(false)) }
        await Task.yield()
        withKnownIssue("a failure recorded on purpose, after a suspension") { #expect(Bool(false)) }
    }

    @Test func aFailureInASynchronousTestOnTheLaneIsReported() throws {
        withKnownIssue("a failure recorded on purpose") { #expect(Bool(false)) }
    }

    @Test func setUpRunsOnTheLaneAndComesBack() async throws {
        let onLane = try await CPULane.run { CPULane.isCurrent }
        #expect(onLane)
    }
}

@Suite struct PoolTests {
    @Test func aTestWithoutTheTraitRunsOnThePool() {
        #expect(!CPULane.isCurrent)
    }

    @Test func setUpRunsOnTheLane() async throws {
        #expect(try await CPULane.run { CPULane.isCurrent })
        #expect(!CPULane.isCurrent)
    }
}
