import SystemLayer

/// One command of the tool, in the shape of swift-argument-parser's `ParsableCommand`: it
/// declares its name, abstract, usage, options and arguments; the tool parses the command line
/// against them, builds the command with `init(parsing:)`, calls `validate()`, then `run(context:)`.
///
/// ```swift
/// struct Hello: ParsableCommand {
///     static let configuration = CommandConfiguration(
///         name: "hello", abstract: "Say hello.",
///         arguments: [nameArgument.definition])
///     static let nameArgument = PositionalArgument("name", help: "Who to greet.")
///     var name: String
///     init(parsing arguments: ParsedArguments) throws(UsageError) {
///         name = try Self.nameArgument.read(from: arguments)
///     }
///     func run(context: CommandContext) throws(CommandFailure) {
///         context.standardOutput.write("hello, \(name)\n")
///     }
/// }
/// ```
public protocol ParsableCommand: Sendable {
    /// The command's name, help texts and the options and arguments it accepts.
    static var configuration: CommandConfiguration { get }

    /// Reads the values the command needs; throws for a value of the wrong form.
    init(parsing arguments: ParsedArguments) throws(UsageError)

    /// Checks the values together before anything runs (nothing is read, written or connected).
    func validate() throws(UsageError)

    /// Does the work. Throwing ends the tool with the failure's message and exit code.
    func run(context: CommandContext) throws(CommandFailure)
}

extension ParsableCommand {
    public func validate() throws(UsageError) {}
}

/// A command whose work is asynchronous (it talks to a server). The tool awaits its
/// `run(context:)` on the cooperative pool; it must not block there (blocking work goes through
/// `BlockingWork.run`).
public protocol AsyncParsableCommand: ParsableCommand {
    /// Does the work. Throwing ends the tool with the failure's message and exit code.
    func run(context: CommandContext) async throws(CommandFailure)
}

extension AsyncParsableCommand {
    /// Never called: the tool awaits the asynchronous `run(context:)`.
    public func run(context: CommandContext) throws(CommandFailure) {
        throw CommandFailure("\(Self.configuration.name) can only run asynchronously")
    }
}

extension ParsedArguments {
    /// The value of the positional argument `name`, which the definitions make required.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = argument(name) else { throw UsageError("missing argument <\(name)>") }
        return value
    }
}

/// What a command is called and what it accepts, for parsing and for its help.
public struct CommandConfiguration: Hashable, Sendable {
    /// The words after the tool's name that select the command (`debug parse`).
    public var name: String
    /// One line: what the command does (the OVERVIEW, and its row in the command list).
    public var abstract: String
    /// More explanation for the help, printed after the abstract; may span lines.
    public var discussion: String?
    /// The USAGE line after the tool's name; generated from the definitions when nil.
    public var usage: String?
    /// Positional arguments, in order.
    public var arguments: [ArgumentDefinition]
    /// Options, in the order the help lists them.
    public var options: [OptionDefinition]

    public init(
        name: String, abstract: String, discussion: String? = nil, usage: String? = nil,
        arguments: [ArgumentDefinition] = [], options: [OptionDefinition] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.arguments = arguments
        self.options = options
    }

    /// The name split into words (`["debug", "parse"]`).
    public var path: [String] { name.split(separator: " ").map(String.init) }

    /// The usage without the tool's name: the explicit one, or `debug parse [<options>] <file>`.
    public var usageLine: String {
        if let usage { return usage }
        var parts = [name]
        if !options.isEmpty { parts.append("[<options>]") }
        parts += arguments.map(\.synopsis)
        return parts.joined(separator: " ")
    }
}

/// A command that opens the account (over TLS, unless told otherwise): the tool starts OpenSSL's
/// one-time set-up on a thread of its own as soon as it has parsed one that will connect.
protocol ConnectingCommand {
    /// Whether this run opens the account (`search --offline` does not).
    var connects: Bool { get }
}

extension ConnectingCommand {
    var connects: Bool { true }
}

/// The environment a command runs in: where its output goes, where standard input comes from,
/// and the environment variables. The real tool
/// uses the process's descriptors and environment; tests capture the output in memory.
public struct CommandContext: Sendable {
    public var standardOutput: any OutputSink
    public var standardError: any OutputSink
    public var standardInput: any ByteReader
    /// The tool's name as the user typed it, for messages (`mailsearch`).
    public var toolName: String
    /// The environment variables (`NO_COLOR`, `MAILSEARCH_PASSWORD`, `XDG_STATE_HOME`, ...).
    public var environment: [String: String]

    public init(
        standardOutput: any OutputSink, standardError: any OutputSink, standardInput: any ByteReader,
        toolName: String = "mailsearch", environment: [String: String] = [:]
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardInput = standardInput
        self.toolName = toolName
        self.environment = environment
    }

    /// The process's standard output, error and input, and its environment.
    public static func standard() -> CommandContext {
        CommandContext(
            standardOutput: FileOutput.standardOutput(), standardError: FileOutput.standardError(),
            standardInput: FileReader.standardInput(), environment: ProcessEnvironment.current())
    }
}

/// A command that could not do its work: the tool prints `error: <message>` and exits with
/// `exitCode`.
public struct CommandFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public var exitCode: ExitCode
    /// One line: what happened and what to try next.
    public var message: String

    public init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}

/// The tool's exit status (docs/cli.md, "Exit codes"; the values follow sysexits.h).
public struct ExitCode: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public var description: String { String(rawValue) }

    /// 0: success, including a search with no results.
    public static let success = ExitCode(rawValue: 0)
    /// 1: anything not listed below.
    public static let failure = ExitCode(rawValue: 1)
    /// 64 (EX_USAGE): unknown command or option, missing argument.
    public static let usageError = ExitCode(rawValue: 64)
    /// 65 (EX_DATAERR): the query does not parse.
    public static let queryError = ExitCode(rawValue: 65)
    /// 69 (EX_UNAVAILABLE): the server cannot be reached, or TLS fails.
    public static let serverUnavailable = ExitCode(rawValue: 69)
    /// 75 (EX_TEMPFAIL): the server answered NO/BAD or the connection broke mid-command.
    public static let temporaryFailure = ExitCode(rawValue: 75)
    /// 77 (EX_NOPERM): the server refused the login.
    public static let loginRefused = ExitCode(rawValue: 77)
}
