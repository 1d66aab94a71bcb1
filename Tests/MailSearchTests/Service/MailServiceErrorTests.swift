import IMAPClient
import MailSearch
import Testing
import Transport

/// A library error says what happened, and lets the caller tell an untrusted certificate (whose
/// CA it may trust) from an expired one or one for another host; the CLI adds what to type.
@Suite struct MailServiceErrorTests {
    @Test(arguments: [
        (TransportError.Code.certificateUntrusted, true), (.certificateExpired, false), (.hostNameMismatch, false),
    ])
    func anUntrustedCertificateIsToldApart(code: TransportError.Code, untrusted: Bool) {
        let error = MailServiceError(
            IMAPError(.tls, "the certificate of imap.example.org is not trusted", transportCode: code))
        #expect(error.isUntrustedCertificate == untrusted)
        #expect(error.category == .tls)
        #expect(error.message == "the certificate of imap.example.org is not trusted")
    }
}
