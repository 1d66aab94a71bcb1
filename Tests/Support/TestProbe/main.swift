import Foundation
import MockIMAPServer
import Synchronization
import Transport

#if canImport(Glibc)
import Glibc
#endif

// Situations a test cannot set up inside the test process without harming the tests running
// beside it, each run in a process of its own: `test-probe <name>`, status 0 when it went as it
// should.
switch CommandLine.arguments.dropFirst().first {
case "openssl-exit":
    // Exits while other threads are busy in OpenSSL, as `mailsearch` does when a connection's I/O
    // thread is still freeing its TLS session: the process must end with status 0, not crash in
    // OpenSSL's clean-up (TransportTests.OpenSSLExitTests).
    for _ in 0..<2 {
        Task.detached {
            while true { await OpenSSLLibrary.warmUp() }
        }
    }
    try await Task.sleep(for: .milliseconds(20))
    exit(0)
case "mock-server-pool-held":
    // Holds every thread of the cooperative pool, then reads the mock server's greeting from a
    // thread of its own (MockIMAPServerTests.SessionExecutorTests).
    exit(await PoolHeldProbe.run() ? 0 : 1)
default:
    FileHandle.standardError.write(Data("usage: test-probe openssl-exit | mock-server-pool-held\n".utf8))
    exit(64)
}

enum PoolHeldProbe {
    private final class SharedState: Sendable {
        let holding = Atomic<Int>(0)
        let released = Atomic<Bool>(false)
        let greeting = Mutex<String?>(nil)
    }

    static func run() async -> Bool {
        let server: MockIMAPServer
        do {
            server = try await MockIMAPServer.start(
                .init(listeners: [.plain()], users: [.init("alice", password: "x")]))
        } catch {
            print("the server did not start: \(error)")
            return false
        }
        guard let port = server.port(for: .plain) else { return false }
        let poolWidth = ProcessInfo.processInfo.activeProcessorCount
        let state = SharedState()
        let client = Thread {
            while state.holding.load(ordering: .acquiring) < poolWidth { usleep(1000) }
            state.greeting.withLock { $0 = readGreeting(port: port, timeoutSeconds: 20) }
            state.released.store(true, ordering: .releasing)
        }
        client.start()
        // Nothing else runs in this process: these tasks take every thread of the pool and block
        // them until the client is done.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<poolWidth {
                group.addTask {
                    state.holding.add(1, ordering: .releasing)
                    while !state.released.load(ordering: .acquiring) { usleep(1000) }
                }
            }
        }
        let line = state.greeting.withLock { $0 }
        print(line.map { "greeting: \($0)" } ?? "no greeting while the pool was held")
        return line?.hasPrefix("* OK") == true
    }

    /// Connects to 127.0.0.1:`port` with blocking calls and reads the first line.
    private static func readGreeting(port: Int, timeoutSeconds: Int) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !received.contains(UInt8(ascii: "\n")) {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
