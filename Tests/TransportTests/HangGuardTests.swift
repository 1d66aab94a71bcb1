import Foundation
import TestSupport
import Testing

/// The hang guard every I/O suite carries (`TestSupport.HangGuard`): it watches each running test,
/// and a test stuck past its limit ends the run with its name on standard error, status 1.
@Suite(.hangGuard, .timeLimit(.minutes(1)))
struct HangGuardTests {
    @Test func everyTestOfAGuardedSuiteIsWatched() throws {
        let current = try #require(Test.current)
        #expect(HangWatch.shared.runningNames.contains("\(current.id)"), "\(HangWatch.shared.runningNames)")
    }

    @Test(arguments: [1, 2]) func everyTestCaseIsWatched(_ number: Int) throws {
        let current = try #require(Test.current)
        #expect(HangWatch.shared.runningNames.contains("\(current.id)"), "\(HangWatch.shared.runningNames)")
    }

    @Test func aStuckTestEndsTheRunWithItsName() async throws {
        do {
            let output = try await TestProbe.run("hang-guard")
            Issue.record("the probe ended normally: \(output)")
        } catch let error as TestProcessError {
            #expect(error.description.contains("(exit 1)"), "\(error)")
            #expect(error.description.contains("HANG: probe/stuckTest() has run for"), "\(error)")
        }
    }
}
