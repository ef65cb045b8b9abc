import Foundation
import Sockets
import Synchronization

/// A loopback server that answers each request head with canned bytes, for the answers the
/// real server never gives (read-until-close bodies, malformed or truncated answers, a silent
/// peer, a keep-alive connection closed under a request). Runs on its own thread; every
/// connection is served in turn by a `poll` loop (tests open few).
final class ScriptedServer: @unchecked Sendable {
    enum Action: Sendable {
        /// Write these bytes and keep the connection.
        case reply(String)
        /// Write these bytes, then close.
        case replyAndClose(String)
        /// Close without a word.
        case close
        /// Say nothing (the client's read timeout).
        case silence
    }

    /// One request as it arrived: its head, which connection (0, 1, ...) and its index there.
    struct Arrival: Sendable, Equatable {
        var head: String
        var connection: Int
        var index: Int
        /// "GET /a HTTP/1.1" (bytes, since Swift reads CR LF as one character).
        var requestLine: String { String(decoding: head.utf8.prefix { $0 != 13 }, as: UTF8.self) }
    }

    let port: Int
    private let listener: Int32
    private let script: @Sendable (Arrival) -> Action
    let arrivals = Mutex<[Arrival]>([])
    private let stopped = Mutex(false)
    private let finished = DispatchSemaphore(value: 0)

    init(host: String = "127.0.0.1", script: @escaping @Sendable (Arrival) -> Action) throws {
        let opened = try TCPListener.open(host: host, port: 0)
        self.listener = opened.fd
        self.port = opened.port
        self.script = script
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        finished.wait()
    }

    var requestLines: [String] { arrivals.withLock { $0.map(\.requestLine) } }

    private struct Peer {
        var fd: Int32
        var number: Int
        var buffer: [UInt8] = []
        var served = 0
    }

    private func serve() {
        var peers: [Peer] = []
        var nextNumber = 0
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer {
            scratch.deallocate()
            for peer in peers { Posix.close(peer.fd) }
            Posix.close(listener)
            finished.signal()
        }
        while !stopped.withLock({ $0 }) {
            while let fd = try? Posix.accept(listener) {
                peers.append(Peer(fd: fd, number: nextNumber))
                nextNumber += 1
            }
            _ = try? Posix.poll(listener, for: .readable, timeoutMilliseconds: peers.isEmpty ? 20 : 1)
            var index = 0
            while index < peers.count {
                var peer = peers[index]
                var open = true
                readLoop: while open {
                    switch (try? Posix.read(peer.fd, into: scratch)) ?? .endOfFile {
                    case .processed(let n): peer.buffer.append(contentsOf: scratch[..<n])
                    case .wouldBlock: break readLoop
                    case .endOfFile: open = false
                    }
                }
                while open, let end = Self.headEnd(peer.buffer) {
                    let head = String(decoding: peer.buffer[..<end], as: UTF8.self)
                    peer.buffer.removeFirst(end)
                    let arrival = Arrival(head: head, connection: peer.number, index: peer.served)
                    peer.served += 1
                    arrivals.withLock { $0.append(arrival) }
                    switch script(arrival) {
                    case .reply(let text):
                        Self.write(peer.fd, text)
                    case .replyAndClose(let text):
                        Self.write(peer.fd, text)
                        open = false
                    case .close:
                        open = false
                    case .silence:
                        break
                    }
                }
                if open {
                    peers[index] = peer
                    index += 1
                } else {
                    Posix.close(peer.fd)
                    peers.remove(at: index)
                }
            }
        }
    }

    /// The offset after the head's empty line (bodies are not read: scripts use bodiless requests
    /// or count Content-Length themselves).
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...bytes.count - 4
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let result = bytes[offset...].withUnsafeBytes { try? Posix.write(fd, $0) }
            switch result {
            case .processed(let n)?: offset += n
            case .wouldBlock?: _ = try? Posix.poll(fd, for: .writable, timeoutMilliseconds: 100)
            default: return
            }
        }
    }
}
