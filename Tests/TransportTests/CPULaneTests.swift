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
