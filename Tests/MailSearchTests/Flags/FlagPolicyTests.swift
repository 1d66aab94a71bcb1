import MailSearch
import TestSupport
import Testing

@Suite(.hangGuard) struct FlagPolicyTests {
    @Test func defaultPinsWithFlagged() {
        let resolution = FlagPolicy().pinFlag(flags: [.seen], permanentFlags: [.seen])
        #expect(resolution == PinFlagResolution(flag: .flagged, warning: nil))
        #expect(FlagPolicy().readFlag == .seen)
    }

    @Test func keywordWhenTheMailboxCanStoreIt() {
        let policy = FlagPolicy(pinKeyword: "$Pinned")
        #expect(policy.pinFlag(flags: [], permanentFlags: [.seen, .wildcard]).flag == "$Pinned")
        #expect(policy.pinFlag(flags: [], permanentFlags: [.seen, "$pinned"]).flag == "$Pinned")
        // No PERMANENTFLAGS: the FLAGS decide.
        #expect(policy.pinFlag(flags: ["$Pinned"], permanentFlags: nil).flag == "$Pinned")
    }

    @Test func keywordFallsBackWithAWarning() {
        let policy = FlagPolicy(pinKeyword: "$Pinned")
        let resolution = policy.pinFlag(flags: ["$Pinned"], permanentFlags: [.seen, .flagged])
        #expect(resolution.flag == .flagged)
        #expect(resolution.warning == FlagPolicyWarning(keyword: "$Pinned"))
        #expect(resolution.warning?.message.contains("$Pinned") == true)
    }
}
