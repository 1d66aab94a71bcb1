internal import COpenSSL
internal import COpenSSLLoader
import Synchronization

/// Timeouts of the connection layer.
public struct ConnectionTimeouts: Hashable, Sendable {
    /// Name resolution plus TCP connect, for all addresses together.
    public var connect: Duration
    /// The TLS handshake.
    public var tlsHandshake: Duration

    public init(connect: Duration = .seconds(15), tlsHandshake: Duration = .seconds(15)) {
        self.connect = connect
        self.tlsHandshake = tlsHandshake
    }
}

/// How a client protects a connection from the first byte.
public enum ClientSecurity: Hashable, Sendable {
    /// No TLS yet (plain text, or STARTTLS later through `startTLS`).
    case plainText
    /// TLS from the first byte (IMAPS, port 993).
    case tls(ClientTLSConfiguration)
}

/// A TCP connection, optionally TLS, driven by its own I/O thread.
///
/// ```swift
/// let connection = try await NetworkConnection.connect(host: "imap.example.com", port: 993,
///                                                      security: .tls(ClientTLSConfiguration()))
/// try await connection.write(Array("a1 CAPABILITY\r\n".utf8))
/// let bytes = try await connection.read(timeout: .seconds(30))
/// ```
/// Every blocking call (getaddrinfo, connect, poll, SSL_read/SSL_write/SSL_do_handshake) runs on
/// the connection's own thread; async callers only wait on continuations, so the cooperative
/// thread pool never blocks. Cancelling a task that waits in `read` ends that wait.
public final class NetworkConnection: Sendable {
    let core: ConnectionCore

    init(core: ConnectionCore) { self.core = core }

    deinit { core.requestClose() }

    /// Resolves `host` (IPv4 and IPv6), tries each address in turn until one connects, and for
    /// `.tls` performs the handshake, verifying the chain and the host name.
    public static func connect(
        host: String, port: Int, security: ClientSecurity, timeouts: ConnectionTimeouts = .init()
    ) async throws(TransportError) -> NetworkConnection {
        var tls: (TLSContext, String)?
        if case .tls(let configuration) = security {
            tls = (try await TLSContext.client(configuration), configuration.serverNameOverride ?? host)
        }
        let core = try ConnectionCore(descriptor: -1)
        let connection = NetworkConnection(core: core)
        let plan = ConnectPlan(host: host, port: port, timeouts: timeouts, tls: tls)
        try await core.run(connecting: plan)
        return connection
    }

    /// Wraps an accepted socket (server side); with `tls`, the server handshake runs first and
    /// reads wait for it.
    static func accepted(
        descriptor: Int32, tls: TLSContext?, timeouts: ConnectionTimeouts
    ) throws(TransportError)
        -> NetworkConnection
    {
        let core = try ConnectionCore(descriptor: descriptor)
        try core.runAccepted(tls: tls, timeouts: timeouts)
        return NetworkConnection(core: core)
    }

    /// The next bytes that arrived (at least one). Throws `.connectionClosed` at the end of the
    /// stream, `.readTimeout` when nothing arrives within `timeout`, `.cancelled` when the task is
    /// cancelled.
    public func read(timeout: Duration? = nil) async throws(TransportError) -> [UInt8] {
        try await core.read(timeout: timeout)
    }

    /// Sends `bytes`; returns when all of them are handed to the kernel (or OpenSSL).
    public func write(_ bytes: [UInt8]) async throws(TransportError) {
        guard !bytes.isEmpty else { return }
        try await core.enqueue { id, continuation in .write(bytes, id: id, continuation) }
    }

    /// Upgrades to TLS as a client (STARTTLS). Bytes that arrived before the handshake and were
    /// not yet read are thrown away: they were not protected (the response-injection attack).
    public func startTLS(_ configuration: ClientTLSConfiguration, serverName: String) async throws(TransportError) {
        let context = try await TLSContext.client(configuration)
        try await core.enqueue { id, continuation in
            .startTLS(
                .client(context, serverName: configuration.serverNameOverride ?? serverName), prelude: [], id: id,
                continuation)
        }
    }

    /// Upgrades to TLS as a server (STARTTLS), after the writes queued before it are sent.
    ///
    /// With `response` (the tagged `OK` to STARTTLS), the response is written and the handshake
    /// begins in one step on the I/O thread, with no read in between: plain-text bytes that
    /// arrived before the response went out are dropped, and the client's first TLS record,
    /// which can only come after it, is never mistaken for them. Writing the response with
    /// `write` and then calling this without it races with a fast client.
    public func startTLS(
        server configuration: ServerTLSConfiguration, afterWriting response: [UInt8] = []
    ) async throws(TransportError) {
        let context = try TLSContext(server: configuration)
        try await core.enqueue { id, continuation in
            .startTLS(.server(context), prelude: response, id: id, continuation)
        }
    }

    /// Upgrades to TLS as a server with an already built context (shared by a listener).
    func startTLS(serverContext context: TLSContext) async throws(TransportError) {
        try await core.enqueue { id, continuation in .startTLS(.server(context), prelude: [], id: id, continuation) }
    }

    /// Closes the connection; pending reads and writes fail with `.cancelled`.
    public func close() { core.requestClose() }

    /// Whether the peer's address is a loopback address (127.0.0.0/8 or ::1).
    public var peerIsLoopback: Bool { core.peerIsLoopback.load(ordering: .relaxed) }

    /// Bytes received and not yet read (a test hook: it lets a test know that data has arrived).
    package var unreadByteCount: Int { core.unreadByteCount.load(ordering: .relaxed) }

    /// Returns once at least `count` received bytes wait for a reader, the connection has ended,
    /// or the calling task is cancelled (a test hook: the event that bytes have arrived, where
    /// ``unreadByteCount`` could only be polled).
    package func waitForUnreadBytes(_ count: Int) async { await core.waitForUnread(count) }

    /// How often a caller has woken the connection's I/O thread (a test hook: a read of bytes
    /// that have already arrived takes them without waking it).
    package var wakeUpCount: Int { core.wakeUps.load(ordering: .relaxed) }

    /// Returns once the connection's I/O thread sleeps in poll(), watching the socket (a test
    /// hook: a read that its sleep already covers, due no earlier than the sleep ends, takes its
    /// bytes without waking it).
    package func waitUntilTheIOThreadSleeps() async { await core.waitUntilTheThreadSleeps() }

    /// Reads waiting for bytes (a test hook).
    package var pendingReadCount: Int { core.shared.withLock { $0.reads.count } }

    /// Returns once a read waits for bytes (a test hook: the event that a read is in flight, where
    /// ``pendingReadCount`` could only be polled).
    package func waitUntilAReadWaits() async { await core.waitUntilAReadWaits() }

    /// Writes and upgrades handed to the I/O thread and not yet taken up by it (a test hook: it
    /// lets a test close the connection while one waits).
    package var queuedOperationCount: Int { core.shared.withLock { $0.operations.count } }

    /// Whether TLS protects the connection now.
    public var isTLS: Bool { core.isTLS.load(ordering: .relaxed) }
}

struct ConnectPlan: Sendable {
    let host: String
    let port: Int
    let timeouts: ConnectionTimeouts
    let tls: (TLSContext, String)?
}

enum TLSRole: Sendable {
    case client(TLSContext, serverName: String)
    case server(TLSContext)
}

enum Operation: Sendable {
    case write([UInt8], id: UInt64, CheckedContinuation<Void, any Error>)
    /// Writes `prelude` (may be empty), then begins the handshake without reading in between.
    case startTLS(TLSRole, prelude: [UInt8], id: UInt64, CheckedContinuation<Void, any Error>)

    var continuation: CheckedContinuation<Void, any Error> {
        switch self {
        case .write(_, _, let continuation), .startTLS(_, _, _, let continuation): return continuation
        }
    }
}

/// A wait for received bytes (`NetworkConnection.waitForUnreadBytes`, a test hook).
struct UnreadWaiter: Sendable {
    let id: UInt64
    let count: Int
    let continuation: CheckedContinuation<Void, Never>
}

struct PendingRead: Sendable {
    let id: UInt64
    let deadline: ContinuousClock.Instant?
    let timeout: Duration?
    let continuation: CheckedContinuation<[UInt8], any Error>
}

/// What async callers and the I/O thread share, behind a Mutex.
struct SharedState: Sendable {
    var operations: [Operation] = []
    var reads: [PendingRead] = []
    /// Bytes received while no read was waiting: the next read takes them at once, without
    /// waking the I/O thread (empty whenever a read waits).
    var received: [UInt8] = []
    /// The peer ended the stream; reads after `received` fail.
    var peerClosed = false
    /// Test hooks waiting until `received` holds a number of bytes.
    var unreadWaiters: [UnreadWaiter] = []
    /// Test hooks waiting until a read waits (`reads` is not empty).
    var readWatchers: [CheckedContinuation<Void, Never>] = []
    var cancelledIDs: Set<UInt64> = []
    var closeRequested = false
    var terminalError: TransportError?
    var nextID: UInt64 = 0
    var threadRunning = false
    /// Set while the I/O thread sleeps in poll(): what wakes it without the wake-up pipe. A new
    /// read that this already covers (see `Watch.covers`) does not write to the pipe.
    var watch: Watch?
    /// The timeout of the last read asked for: the next read most likely has the same, and a
    /// poll() with no read waiting ends when that read would be due (see `Watch`).
    var lastReadTimeout: Duration?
    /// Test hooks waiting until the I/O thread sleeps in poll() (`watch` is set).
    var sleepWatchers: [CheckedContinuation<Void, Never>] = []
}

/// What the I/O thread's poll() waits for: bytes on the socket (when `readable`) and, at the
/// latest, `until` (nil: no time limit).
struct Watch: Sendable {
    let readable: Bool
    let until: ContinuousClock.Instant?

    /// Whether a read due at `deadline` needs no wake-up: the thread wakes for the socket's bytes,
    /// and no later than the deadline, after which its loop polls again with the read in view.
    func covers(_ deadline: ContinuousClock.Instant?) -> Bool {
        guard readable else { return false }
        guard let deadline else { return true }
        guard let until else { return false }
        return until <= deadline
    }
}
