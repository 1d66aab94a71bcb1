import TestSupport
import Testing
import Transport

@Suite(.hangGuard) struct OpenSSLTests {
    @Test func linksOpenSSL3OrNewer() throws {
        let version = OpenSSLLibrary.versionText
        #expect(version.hasPrefix("OpenSSL "))
        let major = try #require(Int(version.dropFirst("OpenSSL ".count).prefix { $0.isNumber }))
        #expect(major >= 3)
    }
}
