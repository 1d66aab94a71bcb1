import Dispatch
import Foundation
import MockIMAPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
}

/// The seed source a path names.
func seedSource(_ path: String) throws(MockServerError) -> SeedSource {
    let url = URL(fileURLWithPath: path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw MockServerError(.invalidSeed, "\(path) does not exist")
    }
    if isDirectory.boolValue {
        let files = FileManager.default
        if files.fileExists(atPath: url.appendingPathComponent("cur").path)
            || files.fileExists(atPath: url.appendingPathComponent("new").path)
        {
            return .maildir(url)
        }
        return .emlDirectory(url)
    }
    switch url.pathExtension.lowercased() {
    case "json": return .json(url)
    case "eml": return .raw([UInt8]((try? Data(contentsOf: url)) ?? Data()))
    default:
        let head = (try? FileHandle(forReadingFrom: url).readData(ofLength: 5)) ?? Data()
        guard head == Data("From ".utf8) else {
            throw MockServerError(
                .invalidSeed, "\(path) is not a Maildir, .eml directory, mbox file, .json seed or .eml file")
        }
        return .mbox(url)
    }
}

/// `host:port`, with brackets around an IPv6 address.
func endpoint(_ listener: MockIMAPServer.Listener) -> String {
    listener.host.contains(":") ? "[\(listener.host)]:\(listener.port)" : "\(listener.host):\(listener.port)"
}

/// SIGINT and SIGTERM, caught from the start (so one that comes while the server starts is not
/// lost) and awaited without blocking a thread of the cooperative pool.
final class TerminationSignal {
    private final class Shared: Sendable {
        let state = Mutex<(signaled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    }

    private let shared = Shared()
    private let sources: [any DispatchSourceSignal]

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "mock-imap-server.signals")
        sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        let shared = shared
        for source in sources {
            source.setEventHandler {
                let waiter = shared.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.signaled = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
            source.resume()
        }
    }

    /// Returns when a signal has come (at once if one came already).
    func wait() async {
        let shared = shared
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = shared.state.withLock { state -> Bool in
                if state.signaled { return true }
                state.waiter = continuation
                return false
            }
            if already { continuation.resume() }
        }
    }
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printError(error.message)
    exit(64)
}
if options.help {
    print(Options.usage)
    exit(0)
}
for warning in options.warnings {
    FileHandle.standardError.write(Data(("warning: " + warning + "\n").utf8))
}
let termination = TerminationSignal()
if options.exitWithParent {
    // A test runner that dies must not leave this server behind.
    let parent = getppid()
    Task.detached {
        while getppid() == parent { try? await Task.sleep(for: .seconds(1)) }
        exit(0)
    }
}

do {
    var listeners: [MockIMAPServer.Listener] = []
    if let plain = options.plain { listeners.append(.plain(host: plain.host, port: plain.port)) }
    if let tls = options.tls { listeners.append(.implicitTLS(host: tls.host, port: tls.port)) }
    var tls = MockIMAPServer.TLSSource.selfSigned(hosts: options.hosts)
    if let certificate = options.certificateIn, let key = options.keyIn {
        guard let chain = FileManager.default.contents(atPath: certificate),
            let keyData = FileManager.default.contents(atPath: key)
        else { throw MockServerError(.startFailed, "cannot read \(certificate) or \(key)") }
        tls = .pem(certificate: [UInt8](chain), key: [UInt8](keyData))
    }
    let server = try await MockIMAPServer.start(
        .init(
            listeners: listeners, tls: tls, profile: options.profile, users: options.users,
            allowPlainTextAuthentication: options.allowPlainTextAuthentication, loginTimeout: options.loginTimeout,
            maximumConnections: options.maximumConnections,
            // Nothing reads transcripts out of this process: do not keep them.
            recordsTranscripts: false, faults: FaultPlan(options.faults)))
    let owner = options.users[0].name
    for path in options.seeds { try server.store.seed(user: owner, from: try seedSource(path)) }
    if options.demo { try DemoMailbox.seed(into: server.store, user: owner) }
    if let path = options.certificateOut {
        guard FileManager.default.createFile(atPath: path, contents: Data(server.certificatePEM)) else {
            throw MockServerError(.startFailed, "cannot write the certificate to \(path)")
        }
    }
    var ready = "READY"
    if let plain = server.listeners.first(where: { $0.kind == .plain }) { ready += " imap=" + endpoint(plain) }
    if let tls = server.listeners.first(where: { $0.kind == .implicitTLS }) { ready += " imaps=" + endpoint(tls) }
    if let path = options.certificateOut { ready += " cert=" + path }
    // Unbuffered: whoever started the server waits for this line.
    FileHandle.standardOutput.write(Data((ready + "\n").utf8))
    await termination.wait()
    // Close every connection; a session that does not end within seconds does not keep the
    // process alive.
    Task.detached {
        await server.stop()
        exit(0)
    }
    try? await Task.sleep(for: .seconds(5))
    exit(0)
} catch let error as MockServerError {
    printError(error.message)
    exit(1)
} catch {
    printError("\(error)")
    exit(1)
}
