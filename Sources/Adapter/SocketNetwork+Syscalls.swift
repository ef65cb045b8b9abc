#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP
import LerixSDK
import Sockets
import TLS

extension SocketNetwork {
    /// A connected, non-blocking TCP socket with `TCP_NODELAY`. `connect(2)` itself blocks:
    /// to loopback or a LAN it answers at once, and a refused port fails at once.
    static func connect(_ origin: Origin) -> Result<Int32, TransportError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(origin.host, String(origin.port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(TransportError("cannot resolve \(origin.host): \(String(cString: gai_strerror(rc)))"))
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            let fd = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, entry.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            var result: Int32
            repeat { result = Glibc.connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) } while result < 0 && errno == EINTR
            if result == 0 {
                do {
                    try Posix.setNoDelay(fd)
                    try Posix.setNonBlocking(fd)
                    return .success(fd)
                } catch {
                    lastError = "\(error)"
                }
            } else {
                lastError = String(cString: strerror(errno))
            }
            Posix.close(fd)
        }
        return .failure(TransportError("cannot connect to \(origin.host):\(origin.port): \(lastError)"))
    }

    /// Runs a client TLS handshake on a connected socket, waiting with `poll(2)` on the caller's
    /// thread (as `connect` does), for at most `timeoutSeconds`.
    static func handshake(fd: Int32, origin: Origin, context: TLSContext, timeoutSeconds: Int) -> Result<TLSSession, TransportError> {
        let name = "\(origin.host):\(origin.port)"
        let session: TLSSession
        do {
            session = try context.makeSession(peerName: origin.host)
        } catch {
            return .failure(TransportError("TLS to \(name) could not start: \(error)"))
        }
        session.start()
        let deadline = monotonicMilliseconds() + Int64(timeoutSeconds) * 1000
        var wire: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var plaintext = [UInt8](repeating: 0, count: 16_384)
        func sendWire() -> TransportError? {
            session.drainCiphertext(into: &wire)
            while !wire.isEmpty {
                let result = wire.withUnsafeBytes { raw in Result { try Posix.write(fd, raw) } }
                switch result {
                case .success(.processed(let n)): wire.removeFirst(n)
                case .success(.wouldBlock):
                    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, Int32(max(1, deadline - monotonicMilliseconds())))
                    if monotonicMilliseconds() >= deadline { return TransportError("TLS handshake with \(name) timed out") }
                case .success(.endOfFile), .failure:
                    return TransportError("\(name) closed the connection during the TLS handshake")
                }
            }
            return nil
        }
        while !session.isHandshakeComplete {
            if let error = sendWire() { return .failure(error) }
            let left = deadline - monotonicMilliseconds()
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&entry, 1, Int32(left)) > 0 else {
                return .failure(TransportError("TLS handshake with \(name) timed out after \(timeoutSeconds) s"))
            }
            let result = buffer.withUnsafeMutableBytes { raw in Result { try Posix.read(fd, into: raw) } }
            switch result {
            case .success(.processed(let n)):
                buffer.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
                let outcome = plaintext.withUnsafeMutableBytes { session.readPlaintext(into: $0) { _ in } }
                if case .failed(let reason) = outcome { return .failure(TransportError("TLS with \(name) failed: \(reason)")) }
                if outcome == .closed { return .failure(TransportError("\(name) ended TLS during the handshake")) }
            case .success(.wouldBlock):
                continue
            case .success(.endOfFile), .failure:
                return .failure(TransportError("\(name) closed the connection during the TLS handshake"))
            }
        }
        if let error = sendWire() { return .failure(error) }
        return .success(session)
    }

    /// Real elapsed time, for request timeouts only (never for the SDK's logic).
    static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    static func serialize(_ request: TransportRequest, _ url: HTTPURL) -> [UInt8] {
        var headers = HTTPHeaders([("User-Agent", userAgent)])
        for header in request.headers where !TransportResponse.namesEqual(header.name, "host")
            && !TransportResponse.namesEqual(header.name, "connection") {
            headers.add(header.name, header.value)
        }
        return HTTPRequestSerializer.bytes(HTTPRequest(method: request.method, target: url.target, headers: headers, body: request.body),
                                           authority: url.authority)
    }

    private static let userAgent = "lerix-swift-sdk/\(LerixConfiguration.currentSDKVersion) (adapter)"
}
