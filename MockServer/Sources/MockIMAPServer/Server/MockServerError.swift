/// Why the mock server could not do what a test or the command line asked.
///
/// `code` names the kind of failure (more codes may be added); `message` says what happened and
/// what to do about it.
public struct MockServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String

        /// A code named `name`.
        public init(_ name: String) { self.name = name }

        /// The name.
        public var description: String { name }

        /// No user of that name exists.
        public static let unknownUser = Code("unknownUser")
        /// No mailbox of that name exists for the user.
        public static let unknownMailbox = Code("unknownMailbox")
        /// A mailbox of that name exists already.
        public static let mailboxExists = Code("mailboxExists")
        /// A seed (file, directory, JSON) could not be read or is malformed.
        public static let invalidSeed = Code("invalidSeed")
        /// An explicit UID is not above every UID in the mailbox.
        public static let uidInUse = Code("uidInUse")
        /// A listener could not be opened, or TLS could not be set up.
        public static let startFailed = Code("startFailed")
        /// A fault specification (`--fault`, `FaultRule(parsing:)`) is malformed.
        public static let invalidFault = Code("invalidFault")
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
