import Foundation
import MockIMAPServer

#if canImport(Glibc)
import Glibc
#endif

/// The command line of `mock-imap-server`, parsed and validated.
struct Options {
    /// A usage error: exit 64.
    struct UsageError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    var plain: (host: String, port: Int)?
    var tls: (host: String, port: Int)?
    var users: [MockIMAPServer.User] = []
    var seeds: [String] = []
    var certificateOut: String?
    var certificateIn: String?
    var keyIn: String?
    var profile: Profile = .full
    var demo = false
    var allowPlainTextAuthentication = false
    var loginTimeout: Duration = .seconds(60)
    var hosts = ["localhost", "127.0.0.1", "::1"]
    var exitWithParent = false
    var faults: [FaultRule] = []
    var maximumConnections = 100
    var help = false
    /// Warnings to print before serving (a password given on the command line, on a network
    /// address).
    var warnings: [String] = []

    /// The environment variable a `--user NAME` password comes from when no `--password-file`
    /// is given.
    static let passwordVariable = "MOCK_IMAP_PASSWORD"

    static let usage = """
        OVERVIEW: A real IMAP server for tests: STARTTLS and implicit TLS, a self-signed certificate,
        seeded mailboxes. Prints one READY line when it listens, then serves until SIGINT or SIGTERM.

        USAGE: mock-imap-server [--listen HOST:PORT] [--tls-listen HOST:PORT]
                                [--user NAME [--password-file FILE] | --user NAME:PASSWORD]...
                                [--seed PATH]... [--demo] [--cert-out FILE] [--profile NAME]
                                [--max-connections N] [--fault SPEC]...

        OPTIONS:
          --listen HOST:PORT      plain-text listener with STARTTLS (port 0 picks a free one)
          --tls-listen HOST:PORT  implicit-TLS listener (port 0 picks a free one)
                                  (neither given: both, on 127.0.0.1:0)
          --user NAME             an account whose password is read from --password-file, else
                                  from the MOCK_IMAP_PASSWORD environment variable (repeatable)
          --user NAME:PASSWORD[:TOKEN]
                                  an account; TOKEN is accepted by AUTHENTICATE XOAUTH2; the
                                  password shows in ps, so keep this form to loopback tests
                                  (none given: alice:secret, refused off loopback)
          --password-file FILE    the password of every --user NAME (one line)
          --seed PATH             mail for the first user: a Maildir, a directory of .eml files
                                  (user/mailbox/*.eml or mailbox/*.eml), an mbox file, a .json seed
                                  or one .eml file (repeatable)
          --demo                  the bundled demo mailbox for the first user
          --cert-out FILE         write the server's certificate (PEM) to FILE for clients to trust
          --cert FILE --key FILE  use this certificate chain and key (PEM) instead of a fresh one
          --hosts NAME,...        names and addresses of the fresh certificate
                                  (default: localhost,127.0.0.1,::1)
          --profile NAME          full, imap4rev1, gmail-like, exchange-like or qresync (default: full)
          --allow-plaintext-auth  allow LOGIN and AUTHENTICATE before STARTTLS on plain text
          --login-timeout SECONDS close connections that do not log in within this time (default: 60)
          --max-connections N     serve at most N connections at once; one more gets BYE (default: 100)
          --fault SPEC            misbehave on purpose (repeatable); SPEC is
                                  [COMMAND[#N][@USER]=]FAULT, no COMMAND: every command,
                                  #N: only the Nth (counted across sessions), @USER: only that user
                                  FAULT: NO [CODE] text | BAD [CODE] text | BYE [CODE] text (then close)
                                         | stall | delay:200ms | close-after:BYTES | close-in-literal
                                         | fragment (one byte per write) | inject:LINE[|LINE...]
                                         | uidvalidity-change
                                  e.g. 'UID STORE#2=NO [UNAVAILABLE] try later', 'SEARCH=stall',
                                  'delay=200ms' (every command), 'FETCH#1=close-after:100',
                                  'NOOP#1=inject:* 3 EXPUNGE', 'uidvalidity-change' (alone: every
                                  LOGOUT gives the selected mailbox a new UIDVALIDITY)
          --exit-with-parent      stop when the process that started this one ends (for test harnesses)
          -h, --help              show this help

        OUTPUT:
          READY imap=127.0.0.1:40123 imaps=127.0.0.1:40124 cert=ca.pem
        """

    /// The options `arguments` give; a `--user NAME` password is read from `--password-file` or
    /// `environment[passwordVariable]`.
    static func parse(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) -> Options {
        var options = Options()
        var namesWithoutPassword: [String] = []
        var passwordsOnCommandLine = false
        var passwordFile: String?
        var index = 0
        func value(_ name: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(name) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": options.help = true
            case "--listen": options.plain = try address(try value(argument), option: argument)
            case "--tls-listen": options.tls = try address(try value(argument), option: argument)
            case "--user":
                let text = try value(argument)
                let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
                guard !parts[0].isEmpty else {
                    throw UsageError("--user takes NAME, NAME:PASSWORD or NAME:PASSWORD:TOKEN, not \"\(text)\"")
                }
                if parts.count == 1 {
                    // The password comes from a file or the environment, never the command line.
                    namesWithoutPassword.append(parts[0])
                    options.users.append(MockIMAPServer.User(parts[0]))
                } else {
                    passwordsOnCommandLine = passwordsOnCommandLine || !parts[1].isEmpty
                    options.users.append(
                        MockIMAPServer.User(
                            parts[0], password: parts[1].isEmpty ? nil : parts[1],
                            oauth2Token: parts.count > 2 ? parts[2] : nil))
                }
            case "--password-file": passwordFile = try value(argument)
            case "--max-connections":
                let text = try value(argument)
                guard let count = Int(text), count > 0 else {
                    throw UsageError("--max-connections takes a number above 0, not \"\(text)\"")
                }
                options.maximumConnections = count
            case "--seed": options.seeds.append(try value(argument))
            case "--demo": options.demo = true
            case "--cert-out": options.certificateOut = try value(argument)
            case "--cert": options.certificateIn = try value(argument)
            case "--key": options.keyIn = try value(argument)
            case "--hosts":
                options.hosts = try value(argument).split(separator: ",").map(String.init)
                guard !options.hosts.isEmpty else { throw UsageError("--hosts needs at least one name") }
            case "--profile":
                let name = try value(argument)
                guard let profile = Profile(rawValue: name) else {
                    throw UsageError(
                        "unknown profile \"\(name)\" (use \(Profile.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                options.profile = profile
            case "--allow-plaintext-auth": options.allowPlainTextAuthentication = true
            case "--exit-with-parent": options.exitWithParent = true
            case "--fault":
                let spec = try value(argument)
                do throws(MockServerError) {
                    options.faults.append(try FaultRule(parsing: spec))
                } catch {
                    throw UsageError("--fault: " + error.message)
                }
            case "--login-timeout":
                let text = try value(argument)
                guard let seconds = Double(text), seconds > 0 else {
                    throw UsageError("--login-timeout takes a number of seconds, not \"\(text)\"")
                }
                options.loginTimeout = .milliseconds(Int(seconds * 1000))
            default:
                throw UsageError("unknown option \"\(argument)\"; see mock-imap-server --help")
            }
            index += 1
        }
        if (options.certificateIn == nil) != (options.keyIn == nil) {
            throw UsageError("--cert and --key go together")
        }
        if options.plain == nil && options.tls == nil {
            options.plain = ("127.0.0.1", 0)
            options.tls = ("127.0.0.1", 0)
        }
        if !namesWithoutPassword.isEmpty {
            let password = try Self.password(file: passwordFile, environment: environment, for: namesWithoutPassword)
            for index in options.users.indices where options.users[index].password == nil {
                if namesWithoutPassword.contains(options.users[index].name) { options.users[index].password = password }
            }
        } else if let passwordFile {
            throw UsageError("--password-file \(passwordFile) is for --user NAME, and no --user NAME was given")
        }
        let addresses = [options.plain, options.tls].compactMap { $0 }
        if let exposed = addresses.first(where: { !isLoopback($0.host) }) {
            let listen =
                exposed.host.contains(":") ? "[\(exposed.host)]:\(exposed.port)" : "\(exposed.host):\(exposed.port)"
            if options.users.isEmpty {
                throw UsageError(
                    "\(listen) is not a loopback address, and the default account alice/secret is for loopback only: "
                        + "pass --user NAME with --password-file FILE or \(passwordVariable)")
            }
            if passwordsOnCommandLine {
                options.warnings.append(
                    "a --user NAME:PASSWORD password shows in ps to every user of this machine, and \(listen) is "
                        + "reachable from others: prefer --user NAME with --password-file FILE or \(passwordVariable)")
            }
        }
        if options.users.isEmpty { options.users = [MockIMAPServer.User("alice", password: "secret")] }
        return options
    }

    /// The password of the `--user NAME` accounts: the first line of `file`, else the
    /// environment variable.
    private static func password(
        file: String?, environment: [String: String], for names: [String]
    ) throws(UsageError) -> String {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError("cannot read the password file \(file)")
            }
            let text = String(decoding: data, as: UTF8.self)
            let line = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.first ?? ""
            guard !line.isEmpty else { throw UsageError("the password file \(file) is empty") }
            return String(line)
        }
        guard let password = environment[passwordVariable], !password.isEmpty else {
            throw UsageError(
                "--user \(names[0]) needs a password: pass --password-file FILE or set \(passwordVariable)")
        }
        return password
    }

    /// Whether `host` names this machine only: `localhost`, 127.0.0.0/8, `::1` (or an
    /// IPv4-mapped 127 address).
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 { return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127 }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, host, &ipv6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// `HOST:PORT`, `[v6]:PORT` or `PORT`.
    static func address(_ text: String, option: String) throws(UsageError) -> (String, Int) {
        var host = "127.0.0.1"
        var portText = text
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        }
        guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else {
            throw UsageError("\(option) takes HOST:PORT (port 0 picks a free one), not \"\(text)\"")
        }
        return (host, port)
    }
}
