import Foundation
import Glibc
import MockIMAPServer
import Synchronization
import Testing

/// The server's sessions run on threads of their own: it answers while every thread of the
/// process's cooperative pool is held by other work (a test process running many tests at once).
@Suite(.timeLimit(.minutes(2)))
struct SessionExecutorTests {
    @Test func theServerAnswersWhileTheCooperativePoolIsHeld() async throws {
        let server = try await startServer()
        defer { Task { await server.stop() } }
        let port = try #require(server.port(for: .plain))
        let poolWidth = ProcessInfo.processInfo.activeProcessorCount
        let state = SharedState()

        // A client on a thread of its own: once every pool thread is held, it connects and reads
        // the greeting (at most 20 s), then lets the pool go.
        let client = Thread {
            let deadline = Date().addingTimeInterval(60)
            while state.holding.load(ordering: .acquiring) < poolWidth && Date() < deadline { usleep(1000) }
            state.poolWasHeld.store(state.holding.load(ordering: .acquiring) == poolWidth, ordering: .releasing)
            state.greeting.withLock { $0 = Self.readGreeting(port: port, timeoutSeconds: 20) }
            state.released.store(true, ordering: .releasing)
        }
        client.start()

        // Hold every thread of the pool: these tasks block theirs until the client is done.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<poolWidth {
                group.addTask {
                    state.holding.add(1, ordering: .releasing)
                    while !state.released.load(ordering: .acquiring) { usleep(1000) }
                }
            }
        }
        let poolWasHeldWhenConnecting = state.poolWasHeld.load(ordering: .acquiring)
        #expect(poolWasHeldWhenConnecting, "the test could not hold every thread of the pool")
        let line = try #require(state.greeting.withLock { $0 }, "the server said nothing while the pool was held")
        #expect(line.hasPrefix("* OK"), "\(line)")
    }

    private final class SharedState: Sendable {
        let holding = Atomic<Int>(0)
        let released = Atomic<Bool>(false)
        let poolWasHeld = Atomic<Bool>(false)
        let greeting = Mutex<String?>(nil)
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
