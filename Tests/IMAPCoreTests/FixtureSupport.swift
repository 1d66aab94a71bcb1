import Foundation

/// Finds the shared fixtures: `$MAILSEARCH_FIXTURES`, else `../shared/fixtures` beside the
/// package root.
enum Fixtures {
    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["MAILSEARCH_FIXTURES"] {
            return URL(fileURLWithPath: override)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    /// The bytes of `name` under `dovecot-2.3/`.
    static func dovecot(_ name: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent("dovecot-2.3").appendingPathComponent(name)
        return [UInt8](try Data(contentsOf: url))
    }
}
