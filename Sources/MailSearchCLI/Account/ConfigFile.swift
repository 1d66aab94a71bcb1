import FoundationEssentials
import JSONText
import SystemLayer

/// `$XDG_CONFIG_HOME/mailsearch/config.json` (default `~/.config/mailsearch/config.json`):
/// named accounts, so `--account work` stands for the host, user and password command.
///
/// ```json
/// { "defaultAccount": "work",
///   "accounts": { "work": { "host": "imap.example.com", "user": "me@example.com",
///                            "passwordCommand": "pass show mail/work", "pinFlag": "\\Flagged" } } }
/// ```
/// Unknown keys are errors (a misspelt key would otherwise be ignored silently), and so is a
/// `password`: secrets come from a command, the environment or a prompt, never from a file.
struct ConfigFile: Hashable, Sendable {
    /// One account of the file; every key is optional.
    struct Account: Hashable, Sendable {
        var host: String?
        var port: Int?
        var user: String?
        var tls: AccountOptions.TLSMode?
        var insecurePlaintext: Bool?
        var mailbox: String?
        var caFile: String?
        var passwordCommand: String?
        var oauth2TokenCommand: String?
        var pinFlag: String?
        var timeout: Double?
    }

    /// Where the file was read from.
    var path: String
    var defaultAccount: String?
    var accounts: [String: Account]

    static let stringKeys = [
        "host", "user", "mailbox", "caFile", "passwordCommand", "oauth2TokenCommand", "pinFlag", "tls",
    ]
    static let keys = stringKeys + ["port", "insecurePlaintext", "timeout"]

    /// The file's path for `environment`.
    static func path(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/mailsearch/config.json"
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.config/mailsearch/config.json"
    }

    /// The file, or nil when there is none. A file (or directory) that another user owns or can
    /// write is refused, as ssh refuses its config: it names commands that we run.
    static func load(environment: [String: String]) throws(CommandFailure) -> ConfigFile? {
        let path = path(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do throws(PrivateFileError) {
            try PrivateFiles.checkTrusted(path)
        } catch {
            throw CommandFailure("the config file \(error)", exitCode: .usageError)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read \(path); check its permissions")
        }
        return try parse(data, path: path)
    }

    /// Parses the bytes of a config file read from `path`.
    static func parse(_ data: Data, path: String) throws(CommandFailure) -> ConfigFile {
        let top: JSONObject
        do {
            guard case .object(let object) = try JSONReader.parse(Array(data)) else {
                throw CommandFailure("\(path) is not a JSON object; see \"mailsearch help\" for its shape")
            }
            top = object
        } catch let failure as CommandFailure {
            throw failure
        } catch let failure as JSONReader.Failure {
            throw CommandFailure(
                "\(path) is not valid JSON (\(failure.reason) at byte \(failure.offset)); check its syntax")
        } catch {
            throw CommandFailure("\(path) is not valid JSON; check its syntax")
        }
        for member in top.members where member.key != "defaultAccount" && member.key != "accounts" {
            throw CommandFailure(
                unknownKey(member.key, in: "the top level", candidates: ["defaultAccount", "accounts"], path))
        }
        var file = ConfigFile(path: path, defaultAccount: nil, accounts: [:])
        if let value = top["defaultAccount"] {
            guard case .string(let name) = value else {
                throw CommandFailure("\(path): defaultAccount must be a string (an account's name)")
            }
            file.defaultAccount = name
        }
        if let value = top["accounts"] {
            guard case .object(let accounts) = value else {
                throw CommandFailure("\(path): accounts must be an object of named accounts")
            }
            for member in accounts.members {
                let name = member.key
                guard case .object(let fields) = member.value else {
                    throw CommandFailure("\(path): the account \"\(name)\" must be an object")
                }
                file.accounts[name] = try account(fields, name: name, path: path)
            }
        }
        return file
    }

    private static func account(_ fields: JSONObject, name: String, path: String) throws(CommandFailure) -> Account {
        var account = Account()
        let place = "the account \"\(name)\""
        for member in fields.members {
            let (key, value) = (member.key, member.value)
            if key == "password" {
                throw CommandFailure(
                    "\(path): \(place) has a password; keep it in a password manager and give passwordCommand instead")
            }
            guard keys.contains(key) else { throw CommandFailure(unknownKey(key, in: place, candidates: keys, path)) }
            if stringKeys.contains(key) {
                guard case .string(let text) = value else {
                    throw CommandFailure("\(path): \(key) of \(place) must be a string")
                }
                switch key {
                case "host": account.host = text
                case "user": account.user = text
                case "mailbox": account.mailbox = text
                case "caFile": account.caFile = text
                case "passwordCommand": account.passwordCommand = text
                case "oauth2TokenCommand": account.oauth2TokenCommand = text
                case "pinFlag": account.pinFlag = text
                default:
                    guard let mode = AccountOptions.TLSMode(rawValue: text.lowercased()) else {
                        throw CommandFailure(
                            "\(path): tls of \(place) must be implicit, starttls or none, not \"\(text)\"")
                    }
                    account.tls = mode
                }
            } else if key == "insecurePlaintext" {
                guard case .bool(let flag) = value else {
                    throw CommandFailure("\(path): \(key) of \(place) must be true or false")
                }
                account.insecurePlaintext = flag
            } else if key == "port" {
                guard case .integer(let number) = value, (1...65535).contains(number) else {
                    throw CommandFailure("\(path): port of \(place) must be a number from 1 to 65535")
                }
                account.port = Int(number)
            } else {
                let seconds: Double? =
                    switch value {
                    case .integer(let number): Double(number)
                    case .fraction(let number): number
                    default: nil
                    }
                guard let seconds, seconds > 0 else {
                    throw CommandFailure("\(path): timeout of \(place) must be a number of seconds above 0")
                }
                account.timeout = seconds
            }
        }
        return account
    }

    private static func unknownKey(_ key: String, in place: String, candidates: [String], _ path: String) -> String {
        let hint = nearestCandidate(to: key, in: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
        return "\(path): unknown key \"\(key)\" in \(place)\(hint)"
    }
}
