import Foundation

/// CPython's email test messages (`Lib/test/test_email/data/msg_*.txt`), as Debian's
/// `libpython3.11-testsuite` installs them: about 47 real-world messages written by other people
/// for another parser (addresses with comments and no angle brackets, missing Date and From
/// headers, an mbox `From ` line, multipart/report, multipart/digest, message/rfc822, RFC 2231
/// parameters, boundaries that never close, bare CRs), a corpus we did not generate.
public enum PythonEmailCorpus {
    /// Where Debian installs the messages.
    public static let directory = "/usr/lib/python3.11/test/test_email/data"

    /// The package that ships them.
    public static let package = "libpython3.11-testsuite"

    /// The messages' file names, in name order (`msg_01.txt` ... `msg_46.txt`, `msg_12a.txt` after
    /// `msg_12.txt`).
    public static func fileNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("msg_") && $0.hasSuffix(".txt") }.sorted()
    }

    /// Whether the corpus tests can run. Without the package they are skipped, unless
    /// `MAILSEARCH_REQUIRE_DOVECOT=1` (CI, which installs it with Dovecot), where a missing corpus
    /// is a failure.
    public static func isAvailable() throws -> Bool {
        let installed = fileNames().count >= 40
        if !installed && ProcessInfo.processInfo.environment["MAILSEARCH_REQUIRE_DOVECOT"] == "1" {
            throw TestProcessError(
                "CPython's email test messages are required (MAILSEARCH_REQUIRE_DOVECOT=1) but \(directory) has"
                    + " none: apt-get install --no-install-recommends \(package)")
        }
        return installed
    }

    /// Every message's bytes, as the files hold them (LF line ends), in `fileNames()` order.
    public static func messages() throws -> [(name: String, bytes: [UInt8])] {
        try fileNames().map { name in
            (name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))))
        }
    }
}
