import IMAPCore
import Synchronization
import Transport

#if canImport(Glibc)
import Glibc
#endif

/// A real IMAP server for tests: plain text with STARTTLS and implicit TLS on loopback ports,
/// a self-signed certificate, users, seeded mailboxes, and per-session transcripts.
///
/// ```swift
/// let server = try await MockIMAPServer.start(.init(
///     listeners: [.plain(port: 0), .implicitTLS(port: 0)],
///     tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]),
///     users: [.init("alice", password: "secret")]))
/// try server.store.seed(user: "alice", mailbox: "INBOX", from: .emlDirectory(url))
/// let port = server.port(for: .implicitTLS)!      // trust server.certificatePEM
/// // ... run the client ...
/// #expect(server.store.flags(user: "alice", mailbox: "INBOX", uid: 7) == [.seen])
/// await server.stop()
/// ```
/// See `docs/mock-server.md` for the protocol it speaks.
public final class MockIMAPServer: Sendable {
    /// What the server was started with.
    public let configuration: Configuration
    /// The mail, shared by every session; tests seed and inspect it.
    public let store: MailStore
    /// The certificate chain the server presents, PEM: what a client must trust.
    public let certificatePEM: [UInt8]
    /// The listeners with the ports they got.
    public let listeners: [Listener]
    /// The faults in force: starts with `configuration.faults`; tests add and remove rules.
    public let faults: FaultController

    private let networkListeners: [NetworkListener]
    private let certificate: ServerTLSConfiguration
    private let registry = Mutex(Registry())
    private let acceptTasks = Mutex<[Task<Void, Never>]>([])
    private let sessionChanges = ChangeSignal()

    private struct Registry {
        var nextID = 1
        var records: [SessionRecord] = []
        var running: [Int: (connection: NetworkConnection, task: Task<Void, Never>)] = [:]
        var stopped = false
    }

    private init(
        configuration: Configuration, certificate: ServerTLSConfiguration, listeners: [Listener],
        networkListeners: [NetworkListener]
    ) {
        self.configuration = configuration
        self.certificate = certificate
        certificatePEM = certificate.certificateChainPEM
        self.listeners = listeners
        self.networkListeners = networkListeners
        store = MailStore(users: configuration.users, defaultMailboxes: configuration.defaultMailboxes)
        faults = FaultController(plan: configuration.faults)
    }

    /// Opens the listeners and starts accepting connections.
    ///
    /// It sets SIGPIPE to be ignored in the process: OpenSSL writes to sockets with `write()`, and a
    /// client that hangs up while a TLS response is on its way must not kill the process.
    public static func start(_ configuration: Configuration) async throws(MockServerError) -> MockIMAPServer {
        signal(SIGPIPE, SIG_IGN)
        let certificate: ServerTLSConfiguration
        switch configuration.tls {
        case .selfSigned(let hosts):
            do {
                certificate = try ServerTLSConfiguration.selfSigned(hosts: hosts)
            } catch {
                throw MockServerError(.startFailed, "cannot make a self-signed certificate: \(error.message)")
            }
        case .pem(let chain, let key):
            certificate = ServerTLSConfiguration(certificateChainPEM: chain, privateKeyPEM: key)
        }
        var bound: [Listener] = []
        var networkListeners: [NetworkListener] = []
        for listener in configuration.listeners {
            do {
                let network = try NetworkListener(
                    host: listener.host, port: listener.port, tls: listener.kind == .implicitTLS ? certificate : nil)
                networkListeners.append(network)
                bound.append(Listener(listener.kind, host: listener.host, port: network.port))
            } catch {
                for network in networkListeners { network.stop() }
                throw MockServerError(.startFailed, error.message)
            }
        }
        let server = MockIMAPServer(
            configuration: configuration, certificate: certificate, listeners: bound,
            networkListeners: networkListeners)
        server.acceptConnections()
        return server
    }

    private func acceptConnections() {
        var tasks: [Task<Void, Never>] = []
        for (listener, network) in zip(listeners, networkListeners) {
            tasks.append(
                Task { [weak self] in
                    for await connection in network.connections {
                        guard let self else {
                            connection.close()
                            continue
                        }
                        self.serve(connection, listener: listener.kind)
                    }
                })
        }
        acceptTasks.withLock { $0 = tasks }
    }

    private func serve(_ connection: NetworkConnection, listener: Listener.Kind) {
        let store = store
        let configuration = configuration
        let certificate = certificate
        let faults = faults
        let admitted = registry.withLock { registry -> Bool in
            guard !registry.stopped else {
                connection.close()
                return true
            }
            guard registry.running.count < configuration.maximumConnections else { return false }
            let id = registry.nextID
            registry.nextID += 1
            let record = SessionRecord(
                id: id, listener: listener, recordsTranscript: configuration.recordsTranscripts)
            registry.records.append(record)
            let task = Task { [weak self] in
                var driver = ConnectionDriver(
                    connection: connection, listener: listener, store: store, configuration: configuration,
                    certificate: certificate, record: record, faults: faults)
                await driver.run()
                _ = self?.registry.withLock { $0.running.removeValue(forKey: id) }
                // Closed only once its slot is free: a test that saw it close may connect again.
                record.closed()
                self?.sessionChanges.notify()
            }
            registry.running[id] = (connection, task)
            return true
        }
        if !admitted { refuse(connection) }
    }

    /// Answers a connection over `maximumConnections` with `* BYE` and closes it; it gets no
    /// session (a flood of refused connections leaves no records behind).
    private func refuse(_ connection: NetworkConnection) {
        let bye = ResponseEncoder.encode(
            .untagged(
                .condition(
                    .bye,
                    ResponseText(
                        text: ByteString(
                            "Too many connections (at most \(configuration.maximumConnections)); try again later")))))
        Task {
            try? await connection.write(bye)
            connection.close()
        }
    }

    /// The port of the first listener of `kind`, or nil when there is none.
    public func port(for kind: Listener.Kind) -> Int? {
        listeners.first { $0.kind == kind }?.port
    }

    /// Every session so far, open or closed, in connection order.
    public var sessions: [SessionInfo] {
        registry.withLock { $0.records }.map(\.info)
    }

    /// Waits until every session `predicate` selects has ended (or `timeout` passes); whether
    /// they have. Sessions that connect meanwhile count too.
    ///
    /// ```swift
    /// client.close()
    /// #expect(await server.waitUntilSessionsEnd { $0.id == stalledID })
    /// ```
    public func waitUntilSessionsEnd(
        timeout: Duration = .seconds(30), where predicate: @escaping @Sendable (SessionInfo) -> Bool = { _ in true }
    ) async -> Bool {
        await sessionChanges.wait(timeout: timeout) {
            !self.sessions.contains { $0.isOpen && predicate($0) }
        }
    }

    /// Stops listening, closes every connection and waits for the sessions to end.
    public func stop() async {
        for network in networkListeners { network.stop() }
        let running = registry.withLock { registry -> [(connection: NetworkConnection, task: Task<Void, Never>)] in
            registry.stopped = true
            return Array(registry.running.values)
        }
        for session in running { session.connection.close() }
        // Ends a delay a fault put in a session's way.
        for session in running { session.task.cancel() }
        for session in running { await session.task.value }
        for task in acceptTasks.withLock({ $0 }) { await task.value }
    }
}
