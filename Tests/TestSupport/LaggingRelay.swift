import Foundation
import Glibc
import Sockets
import Synchronization

/// A loopback relay to `127.0.0.1:targetPort` that holds every connection still for `lag`
/// before a byte moves either way, then passes bytes both ways as they come: a peer that
/// answers only once the machine gets round to it, as a starved process does, without
/// starving anything else in the test run.
///
/// ```swift
/// let relay = try LaggingRelay(to: gatewayPort, lag: .milliseconds(2500))
/// // connect to relay.port: TCP is up at once, the first answer byte after 2.5 s
/// relay.stop()
/// ```
public final class LaggingRelay: Sendable {
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let targetPort: Int
    private let lag: Duration
    private let stopped = Atomic<Bool>(false)
    private let accepted = Atomic<Int>(0)

    public init(to targetPort: Int, lag: Duration) throws {
        let opened = try TCPListener.open(host: "127.0.0.1", port: 0, backlog: 64)
        listener = opened.fd
        port = opened.port
        self.targetPort = targetPort
        self.lag = lag
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { accepted.load(ordering: .relaxed) }

    /// Stops accepting and ends every relayed connection (within 50 ms).
    public func stop() {
        // The accept loop notices within one poll and closes the listener itself; its threads
        // hold the relay until then.
        stopped.store(true, ordering: .relaxed)
    }

    private func acceptLoop() {
        defer { Posix.close(listener) }
        while !stopped.load(ordering: .relaxed) {
            guard Self.wait(listener, events: Int16(POLLIN), milliseconds: 50) else { continue }
            guard let client = try? Posix.accept(listener) else { continue }
            accepted.add(1, ordering: .relaxed)
            let thread = Thread { [self] in relay(client) }
            thread.start()
        }
    }

    private func relay(_ client: Int32) {
        defer { Posix.close(client) }
        Thread.sleep(forTimeInterval: Double(lag.components.seconds) + Double(lag.components.attoseconds) / 1e18)
        guard !stopped.load(ordering: .relaxed),
            let address = try? SocketAddress.resolve(host: "127.0.0.1", port: targetPort),
            let upstream = try? Posix.connect(to: address, timeoutMilliseconds: 10_000)
        else { return }
        defer { Posix.close(upstream) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !stopped.load(ordering: .relaxed) {
            var fds = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: upstream, events: Int16(POLLIN), revents: 0),
            ]
            guard Glibc.poll(&fds, 2, 50) >= 0 || errno == EINTR else { return }
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                let from = entry.fd
                let to = index == 0 ? upstream : client
                let count = buffer.withUnsafeMutableBytes { Glibc.read(from, $0.baseAddress, $0.count) }
                if count == 0 { return }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    return
                }
                guard Self.writeAll(to, buffer[0..<count]) else { return }
            }
        }
    }

    /// Writes every byte to a non-blocking socket, waiting in poll while it is full.
    private static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                rest = rest.dropFirst(written)
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                _ = wait(fd, events: Int16(POLLOUT), milliseconds: 50)
            } else {
                return false
            }
        }
        return true
    }

    private static func wait(_ fd: Int32, events: Int16, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        return Glibc.poll(&entry, 1, milliseconds) > 0
    }
}
