#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LerixSDK
import Sockets

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

    /// Real elapsed time, for request timeouts only (never for the SDK's logic).
    static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    static func serialize(_ request: TransportRequest, _ target: RequestTarget) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + request.body.count)
        func put(_ text: String) { out.append(contentsOf: text.utf8) }
        put(request.method); out.append(32); put(target.path); put(" HTTP/1.1\r\nHost: "); put(target.hostHeader)
        put("\r\nUser-Agent: lerix-swift-sdk/"); put(LerixConfiguration.currentSDKVersion); put(" (adapter)\r\n")
        for header in request.headers {
            if TransportResponse.namesEqual(header.name, "host") || TransportResponse.namesEqual(header.name, "content-length")
                || TransportResponse.namesEqual(header.name, "connection") { continue }
            put(header.name); put(": "); put(header.value); put("\r\n")
        }
        if !request.body.isEmpty || (request.method != "GET" && request.method != "HEAD") {
            put("Content-Length: "); put(String(request.body.count)); put("\r\n")
        }
        put("\r\n")
        out.append(contentsOf: request.body)
        return out
    }
}
