import Glibc

/// A tiny blocking HTTP client for tests: raw bytes out, responses parsed just enough.
/// Every receive has a timeout, so a server bug fails a test instead of hanging it.
final class TestClient {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (an IPv4 or IPv6 literal) on `port`. `receiveBuffer` fixes the
    /// socket's receive buffer (no autotuning), for tests that count what a server holds.
    init(port: Int, host: String = "127.0.0.1", timeoutSeconds: Int = 10, receiveBuffer: Int32? = nil) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let rc: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw Failure(description: "connect: \(e)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            offset += n
        }
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[..<n])
            return true
        }
        if n == 0 { return false }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK { throw Failure(description: "timed out waiting for the server") }
        if e == ECONNRESET { return false }
        throw Failure(description: "recv: \(e)")
    }

    /// Reads one response (Content-Length framing, or none for 1xx/204/304 and HEAD).
    func readResponse(head: Bool = false) throws -> Response {
        var end: Int?
        while end == nil {
            end = findHeadEnd()
            if end == nil { guard try fill() else { throw Failure(description: "connection closed before a response") } }
        }
        guard let headEnd = end else { throw Failure(description: "unreachable") }
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line: \(statusLine)") }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            let kv = line.split(separator: ":", maxSplits: 1)
            headers.append((String(kv[0]), kv.count > 1 ? String(kv[1].drop { $0 == " " }) : ""))
        }
        buffer.removeFirst(headEnd + 4)
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        let bodyLength = head || status < 200 || status == 204 || status == 304 ? 0 : length
        while buffer.count < bodyLength {
            guard try fill() else { throw Failure(description: "connection closed inside a body") }
        }
        let body = Array(buffer[..<bodyLength])
        buffer.removeFirst(bodyLength)
        return Response(status: status, headers: headers, body: body)
    }

    /// Everything up to and including `marker` (a streamed body's next event, say).
    func readText(through marker: String) throws -> String {
        let needle = Array(marker.utf8)
        while true {
            if buffer.count >= needle.count {
                for i in 0 ... buffer.count - needle.count where Array(buffer[i ..< i + needle.count]) == needle {
                    let text = String(decoding: buffer[..<(i + needle.count)], as: UTF8.self)
                    buffer.removeFirst(i + needle.count)
                    return text
                }
            }
            guard try fill() else { throw Failure(description: "connection closed before \"\(marker)\"") }
        }
    }

    /// True when the server closed the connection (after any buffered bytes).
    func readsEndOfStream() throws -> Bool {
        while true {
            if !buffer.isEmpty { return false }
            if try !fill() { return true }
        }
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0 ... buffer.count - 4
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}

extension String {
    func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            result.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}
