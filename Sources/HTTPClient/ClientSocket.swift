import Dispatch
import Reactor
import Sockets

/// One client TCP connection registered on a ``Reactor``: a non-blocking connect to the first
/// address that answers, a ``ConnectionTransport`` (plaintext or TLS), buffered output, and a connect
/// deadline that covers the TLS handshake too. The protocol on top is its
/// ``ClientSocketDelegate``; the socket only moves bytes.
///
/// ```swift
/// let socket = ClientSocket(reactor: reactor, peer: "localhost:8080", addresses: addresses,
///                           security: .plaintext, connectTimeout: 2_000_000_000, delegate: h1)
/// socket.start()                                  // any thread; events arrive on reactor.queue
/// // in h1.socketEstablished(socket), on the queue:
/// socket.send(requestBytes)
/// ```
///
/// Confined to its reactor's queue after ``start()``; the reactor holds it while it is
/// registered, the delegate until it closes. (`@unchecked Sendable`: handed to the queue once.)
public final class ClientSocket: ReactorHandler, @unchecked Sendable {
    public enum Phase: Equatable, Sendable { case idle, connecting, handshaking, established, closed }

    public let reactor: Reactor
    /// How errors name the peer: "localhost:8080".
    public let peer: String
    public let addresses: [SocketAddress]
    public let connectTimeout: UInt64
    private let security: TransportSecurity
    private var delegate: (any ClientSocketDelegate)?

    public private(set) var phase = Phase.idle
    /// The address connected to (or being tried).
    public private(set) var address: SocketAddress?
    private var addressIndex = 0
    private var failures: [String] = []
    private var fd: Int32 = -1
    private var transport: (any ConnectionTransport)?
    private var connectDeadline: UInt64 = 0

    /// Wire bytes waiting for the socket, from `wireOffset` on.
    private var wire: [UInt8] = []
    private var wireOffset = 0
    private var interest: Epoll.Events = []
    private var reading = true
    private var inEvent = false
    private var closeWhenFlushed = false

    /// - Parameters:
    ///   - addresses: tried in order until one connects (from `SocketAddress.lookup`); not empty.
    ///   - connectTimeout: nanoseconds for TCP and the TLS handshake together; 0 for none (a
    ///     peer in this process, which answers whenever the machine schedules it).
    public init(
        reactor: Reactor,
        peer: String,
        addresses: [SocketAddress],
        security: TransportSecurity,
        connectTimeout: UInt64,
        delegate: any ClientSocketDelegate
    ) {
        self.reactor = reactor
        self.peer = peer
        self.addresses = addresses
        self.security = security
        self.connectTimeout = connectTimeout
        self.delegate = delegate
    }

    /// The protocol ALPN agreed on (TLS only).
    public var negotiatedProtocol: String? { transport?.negotiatedProtocol }

    /// Unsent wire bytes.
    public var pendingOutputBytes: Int { wire.count - wireOffset }

    /// Starts connecting (from any thread). The outcome reaches the delegate on the reactor's
    /// queue, never before this returns: ``ClientSocketDelegate/socketEstablished(_:)`` or
    /// ``ClientSocketDelegate/socket(_:closedWith:)``.
    public func start() {
        reactor.queue.async { [self] in
            guard phase == .idle else { return }
            phase = .connecting
            connectDeadline = connectTimeout == 0 ? 0 : Reactor.now() &+ connectTimeout
            guard !addresses.isEmpty else {
                fail(.connectFailed(peer: peer, reason: "no address to connect to"))
                return
            }
            connectNext()
        }
    }

    // MARK: Connecting

    /// Tries addresses from `addressIndex` on until one is under way or all failed.
    private func connectNext() {
        while addressIndex < addresses.count {
            let candidate = addresses[addressIndex]
            addressIndex += 1
            address = candidate
            do {
                let opened = try Posix.startConnect(to: candidate)
                fd = opened.fd
                interest = opened.connected ? [.readable, .readHangup] : [.writable]
                do {
                    try reactor.register(self, fd: fd, interest: interest)
                } catch {
                    Posix.close(fd)
                    fd = -1
                    fail(.connectFailed(peer: peer, reason: "\(error)"))
                    return
                }
                if opened.connected { connected() }
                return
            } catch let error as SocketError {
                failures.append("\(candidate): \(Self.reason(error.errno))")
            } catch {
                failures.append("\(candidate): \(error)")
            }
        }
        fail(.connectFailed(peer: peer, reason: failures.joined(separator: "; ")))
    }

    /// The pending connect finished (the socket turned writable): did it work?
    private func connectFinished() {
        let error = Posix.pendingError(fd)
        guard error == 0 else {
            failures.append("\(address.map { "\($0)" } ?? peer): \(Self.reason(error))")
            releaseDescriptor()
            connectNext()
            return
        }
        connected()
    }

    private func connected() {
        let transport: any ConnectionTransport
        do {
            transport = try security.makeTransport(on: reactor)
        } catch {
            fail(error)
            return
        }
        self.transport = transport
        transport.start(wire: &wire)
        if transport.isEstablished {
            established()
        } else {
            phase = .handshaking
        }
        updateInterest()
        flushSoon()
    }

    private func established() {
        phase = .established
        delegate?.socketEstablished(self)
    }

    // MARK: ReactorHandler

    public func handle(_ events: Epoll.Events) {
        assertConfined()
        switch phase {
        case .connecting:
            if !events.isDisjoint(with: [.writable, .error, .hangup]) { connectFinished() }
            return
        case .handshaking, .established:
            break
        case .idle, .closed:
            return
        }
        inEvent = true
        if events.contains(.writable) { writeWire() }
        if phase != .closed, reading, !events.isDisjoint(with: [.readable, .readHangup, .hangup, .error]) {
            readAvailable()
        }
        inEvent = false
        if phase != .closed { flush() }
    }

    public var deadline: UInt64 {
        switch phase {
        case .connecting, .handshaking: return connectDeadline
        case .established: return delegate?.socketDeadline ?? 0
        case .idle, .closed: return 0
        }
    }

    public func deadlinePassed() {
        switch phase {
        case .connecting, .handshaking:
            fail(.connectTimedOut(peer: peer, milliseconds: Int(connectTimeout / 1_000_000)))
        case .established:
            delegate?.socketDeadlinePassed(self)
        case .idle, .closed:
            break
        }
    }

    // MARK: Reading

    private func readAvailable() {
        let buffer = reactor.readBuffer
        while phase == .handshaking || phase == .established {
            let result: IOResult
            do {
                result = try Posix.read(fd, into: buffer)
            } catch {
                fail(ioFailure(error))
                return
            }
            switch result {
            case .processed(let n):
                received(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
                if n < buffer.count { return }
            case .wouldBlock:
                return
            case .endOfFile:
                if phase == .handshaking {
                    fail(.tlsFailed(peer: peer, reason: "the server closed the connection during the handshake"))
                    return
                }
                peerFinished()
                return
            }
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard let transport else { return }
        // The delegate may send while it is handed plaintext (that appends to `wire`), so the
        // transport's own replies collect apart and follow. Order holds: a TLS session's bytes
        // leave its one outgoing BIO in sequence, whichever call drains them.
        var replies: [UInt8] = []
        let state = transport.receive(bytes, wire: &replies) { plaintext in
            if phase == .handshaking, transport.isEstablished { established() }
            if phase == .established { delegate?.socket(self, received: plaintext) }
        }
        if !replies.isEmpty, phase != .closed { wire.append(contentsOf: replies) }
        if phase == .handshaking, transport.isEstablished { established() }
        switch state {
        case .open:
            break
        case .peerClosed:
            if phase == .established { peerFinished() }
        case .failed(let reason):
            writeWire()  // the alert, if any
            fail(.tlsFailed(peer: peer, reason: reason))
        }
    }

    private func peerFinished() {
        guard reading, phase == .established else { return }
        reading = false
        updateInterest()
        delegate?.socketPeerClosed(self)
    }

    // MARK: Writing

    /// Queues plaintext for the peer; it leaves at the end of the current event, or now.
    public func send(_ bytes: UnsafeRawBufferPointer) {
        assertConfined()
        guard phase == .established || phase == .handshaking, let transport else { return }
        transport.send(bytes, wire: &wire)
        flushSoon()
    }

    public func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send($0) }
    }

    /// Lets the protocol write into a scratch buffer that is sent as one piece.
    public func send(writing body: (inout [UInt8]) -> Void) {
        var scratch: [UInt8] = []
        body(&scratch)
        send(scratch)
    }

    private func flushSoon() {
        if !inEvent { flush() }
    }

    /// Writes what is queued; waits for writability for the rest.
    public func flush() {
        guard phase == .handshaking || phase == .established else { return }
        writeWire()
        if phase != .closed, closeWhenFlushed, wireOffset >= wire.count { close() }
    }

    private func writeWire() {
        while wireOffset < wire.count {
            let result: IOResult
            do {
                let start = wireOffset
                result = try wire.withUnsafeBytes {
                    try Posix.write(fd, UnsafeRawBufferPointer(rebasing: $0[start...]))
                }
            } catch {
                fail(ioFailure(error))
                return
            }
            switch result {
            case .processed(let n):
                wireOffset += n
            case .wouldBlock, .endOfFile:
                if wireOffset >= 64 << 10 && wireOffset * 2 >= wire.count {
                    wire.removeFirst(wireOffset)
                    wireOffset = 0
                }
                updateInterest()
                return
            }
        }
        if wire.capacity > 64 << 10 { wire = [] } else { wire.removeAll(keepingCapacity: true) }
        wireOffset = 0
        updateInterest()
    }

    private func updateInterest() {
        guard fd >= 0, phase == .handshaking || phase == .established else { return }
        var wanted: Epoll.Events = []
        if reading { wanted.formUnion([.readable, .readHangup]) }
        if wireOffset < wire.count { wanted.insert(.writable) }
        guard wanted != interest else { return }
        interest = wanted
        do {
            try reactor.modify(fd: fd, interest: wanted)
        } catch {
            fail(.ioFailed(peer: peer, reason: "\(error)"))
        }
    }

    // MARK: Closing

    /// Ends the transport (TLS close_notify), writes what is queued, then closes.
    public func closeAfterFlush() {
        guard phase == .handshaking || phase == .established else {
            close()
            return
        }
        if !closeWhenFlushed {
            closeWhenFlushed = true
            transport?.finish(wire: &wire)
        }
        flushSoon()
    }

    /// Closes now, dropping unsent bytes; the delegate hears `closedWith: nil`.
    public func close() {
        assertConfined()
        finish(nil)
    }

    /// Debug builds check the confinement the `@unchecked Sendable` relies on.
    @inline(__always)
    private func assertConfined() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(reactor.queue))
        #endif
    }

    private func fail(_ error: HTTPClientError) {
        finish(error)
    }

    private func finish(_ error: HTTPClientError?) {
        guard phase != .closed else { return }
        phase = .closed
        releaseDescriptor()
        transport = nil
        wire = []
        wireOffset = 0
        let delegate = self.delegate
        self.delegate = nil
        delegate?.socket(self, closedWith: error)
    }

    private func releaseDescriptor() {
        guard fd >= 0 else { return }
        reactor.deregister(self, fd: fd)
        Posix.close(fd)
        fd = -1
        interest = []
    }

    /// A failed read or write (a reset), named by the `errno` text.
    private func ioFailure(_ error: any Error) -> HTTPClientError {
        .ioFailed(peer: peer, reason: (error as? SocketError)?.reason ?? "\(error)")
    }

    /// "Connection refused", from `strerror`.
    static func reason(_ code: Int32) -> String {
        SocketError(call: "", errno: code).reason
    }
}
