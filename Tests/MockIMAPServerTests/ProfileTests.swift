import IMAPCore
import MockIMAPServer
import TestSupport
import Testing

@Suite(.hangGuard) struct ProfileTests {
    @Test func profilesDifferInTheExtensionsClientsFallBackFrom() {
        #expect(Profile.full.capabilities.contains(.sort) && Profile.full.capabilities.contains(.esearch))
        #expect(!Profile.exchangeLike.capabilities.contains(.sort))
        #expect(!Profile.exchangeLike.capabilities.contains(.esearch))
        #expect(Profile.gmailLike.capabilities.contains(.gmailExtensions))
        #expect(Profile.imap4rev1.capabilities == [.imap4rev1])
        #expect(Profile(rawValue: "gmail-like") == .gmailLike)
    }
}
