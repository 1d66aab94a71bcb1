import MockIMAPServer

/// The built-in demo mailbox of `--demo`: the bundled mock IMAP server, started in this process
/// on a free loopback port with implicit TLS and a fresh self-signed certificate, seeded with
/// `DemoMailbox`. The tool connects to it exactly as to a real server, trusting only that
/// certificate. Changes last as long as the process.
struct DemoServer: Sendable {
    /// The demo account's login name.
    static let user = "demo"

    let server: MockIMAPServer
    /// The implicit-TLS port it listens on, on 127.0.0.1.
    let port: Int
    /// A password made for this run (nobody else can log in to the demo server).
    let password: String

    /// Starts the server and seeds the demo messages.
    static func start() async throws(CommandFailure) -> DemoServer {
        let password = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        do {
            let server = try await MockIMAPServer.start(
                .init(
                    listeners: [.implicitTLS(host: "127.0.0.1", port: 0)],
                    tls: .selfSigned(hosts: ["localhost", "127.0.0.1"]),
                    users: [.init(user, password: password)], recordsTranscripts: false))
            guard let port = server.port(for: .implicitTLS) else {
                await server.stop()
                throw CommandFailure("the demo server did not get a port")
            }
            do {
                try DemoMailbox.seed(into: server.store, user: user)
            } catch {
                await server.stop()
                throw CommandFailure("cannot fill the demo mailbox: \(error.message)")
            }
            return DemoServer(server: server, port: port, password: password)
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as MockServerError {
            throw CommandFailure("cannot start the demo server: \(error.message)")
        } catch {
            throw CommandFailure("cannot start the demo server: \(error)")
        }
    }

    /// The certificate to trust, PEM.
    var certificatePEM: [UInt8] { server.certificatePEM }

    /// Closes every connection and stops listening.
    func stop() async { await server.stop() }
}
