import Dispatch
import HTTPClient
import Reactor
import Synchronization

/// A ``ClientSocketDelegate`` for tests: sends `request` once established, records what
/// arrives, and signals `done` when the socket closes. Tests wait on `done` (never on the
/// reactor's queue).
final class SocketRecorder: ClientSocketDelegate, @unchecked Sendable {
    struct Record {
        var established = false
        var negotiatedProtocol: String?
        var received: [UInt8] = []
        var peerClosed = false
        var closed = false
        var error: HTTPClientError?
        var onQueue = true
    }

    let request: [UInt8]
    let closeOnPeerClose: Bool
    let record = Mutex(Record())
    let done = DispatchSemaphore(value: 0)
    /// The recorder's own deadline once established (a read timeout), set on the queue.
    var socketDeadline: UInt64 = 0
    let readTimeout: UInt64

    init(request: String, closeOnPeerClose: Bool = true, readTimeout: UInt64 = 0) {
        self.request = Array(request.utf8)
        self.closeOnPeerClose = closeOnPeerClose
        self.readTimeout = readTimeout
    }

    var text: String { record.withLock { String(decoding: $0.received, as: UTF8.self) } }

    /// Waits (on the test's thread) for the close; false after `seconds`.
    func waitForClose(seconds: Int = 10) -> Bool {
        done.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    private func noteQueue(_ socket: ClientSocket) {
        let current = socket.reactor.isCurrent
        record.withLock { $0.onQueue = $0.onQueue && current }
    }

    func socketEstablished(_ socket: ClientSocket) {
        noteQueue(socket)
        record.withLock {
            $0.established = true
            $0.negotiatedProtocol = socket.negotiatedProtocol
        }
        if readTimeout > 0 { socketDeadline = Reactor.now() &+ readTimeout }
        socket.send(request)
    }

    func socket(_ socket: ClientSocket, received bytes: UnsafeRawBufferPointer) {
        noteQueue(socket)
        record.withLock { $0.received.append(contentsOf: bytes) }
    }

    func socketPeerClosed(_ socket: ClientSocket) {
        noteQueue(socket)
        record.withLock { $0.peerClosed = true }
        if closeOnPeerClose { socket.close() }
    }

    func socket(_ socket: ClientSocket, closedWith error: HTTPClientError?) {
        noteQueue(socket)
        record.withLock {
            $0.closed = true
            $0.error = error
        }
        done.signal()
    }

    func socketDeadlinePassed(_ socket: ClientSocket) {
        socket.closeAfterFlush()
    }
}
