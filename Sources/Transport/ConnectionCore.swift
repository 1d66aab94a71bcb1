internal import COpenSSL
internal import COpenSSLLoader
import Synchronization
import SystemLayer

/// The one object that owns a connection's socket and `SSL*`, and the I/O thread that uses them.
///
/// Its jobs live in their own files: `ConnectionCore+AsyncBridge.swift` (what async callers call),
/// `ConnectionCore+PollLoop.swift` (the I/O thread), `TLSSteps.swift` (OpenSSL), `Connector.swift`
/// (connecting) and `AddressChecks.swift` (loopback and address literals).
///
/// Ownership rule (why `@unchecked Sendable` is sound): `descriptor`, `ssl`, `inbound`,
/// `localOperations`, `writeOffset`, `handshake`, `endOfStream`, `readBuffer` and
/// `handshakeTimeout` are read and written only by the connection's I/O thread once it has started
/// (before that, only by the initializer that created it). Async callers touch nothing but
/// `shared` (a Mutex), the atomics and `wakeUp`, which never changes and is closed only in
/// `deinit`, after the I/O thread has dropped its reference. (Those I/O-thread properties are
/// internal rather than private only so that the extensions in the other files can reach them.)
final class ConnectionCore: @unchecked Sendable {
    let shared = Mutex(SharedState())
    let wakeUp: WakeUpPipe
    let peerIsLoopback = Atomic<Bool>(false)
    let isTLS = Atomic<Bool>(false)
    /// How many received bytes wait for a reader (a test hook; the I/O thread keeps it current).
    let unreadByteCount = Atomic<Int>(0)
    /// How often a caller woke the I/O thread (a test hook).
    let wakeUps = Atomic<Int>(0)

    // I/O thread only.
    var descriptor: Int32
    var ssl: OpaquePointer?
    var inbound: [UInt8] = []
    var endOfStream = false
    var localOperations: [Operation] = []
    var writeOffset = 0
    var handshake: Handshake?
    var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// The TLS handshake timeout for STARTTLS (set when the thread starts).
    var handshakeTimeout: Duration = .seconds(15)

    /// How much may be read ahead of the consumer before reading pauses.
    let readAheadLimit = 1 << 20

    struct Handshake {
        let role: TLSRole
        let deadline: ContinuousClock.Instant
        let completion: CheckedContinuation<Void, any Error>?
    }

    init(descriptor: Int32) throws(TransportError) {
        _ = brokenPipeSignalIgnored
        self.descriptor = descriptor
        wakeUp = try transporting { () throws(SystemCallError) in try WakeUpPipe() }
    }

    /// Wakes the I/O thread to take up a request.
    func wakeThread() {
        wakeUps.add(1, ordering: .relaxed)
        wakeUp.signal()
    }

    deinit {
        wakeUp.close()
        if let ssl { openssl.pointee.SSL_free(ssl) }
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }
}

/// OpenSSL writes to sockets with write(2), which raises SIGPIPE when the peer has gone; the
/// default action would kill the process. A connection reports a broken pipe as an error instead.
private let brokenPipeSignalIgnored: Void = {
    do throws(SystemCallError) {
        try ProcessSignals.ignoreBrokenPipe()
    } catch {
        // signal() fails only for an invalid signal number: a bug.
        assertionFailure("could not ignore SIGPIPE: \(error)")
    }
}()
