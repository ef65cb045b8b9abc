#if canImport(Glibc)
import Glibc
#endif
import HTTP

/// A deliberately simple, blocking HTTP/1.1 client for tests: real sockets, receive
/// timeouts so a server bug fails the test instead of hanging it, raw bytes when a
/// test needs to send something malformed.
///
/// ```swift
/// let client = try TestHTTPClient(port: server.port)
/// let response = try client.send(HTTPRequest(method: "GET", target: "/healthz"))
/// #expect(response.status == 200)
/// ```
public final class TestHTTPClient {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let fd: Int32
    private var buffer: [UInt8] = []
    /// The request `send` is waiting on, for ``ExchangeRecorder`` (nil after raw writes).
    private var awaited: HTTPRequest?

    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 10) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to \(host):\(port) failed: errno \(errno)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends raw bytes as they are.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += n
        }
    }

    public func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Serializes `request` (adding Host and Content-Length) and reads one response.
    public func send(_ request: HTTPRequest) throws -> HTTPResponse {
        try write(Self.serialize(request))
        awaited = request
        defer { awaited = nil }
        return try readResponse(forHead: request.method == "HEAD")
    }

    public static func serialize(_ request: HTTPRequest) -> [UInt8] {
        var head = "\(request.method) \(request.target) HTTP/1.1\r\n"
        if !request.headers.contains("Host") { head += "Host: 127.0.0.1\r\n" }
        for field in request.headers { head += "\(field.name): \(field.value)\r\n" }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            if !request.headers.contains("Content-Length") { head += "Content-Length: \(request.body.count)\r\n" }
        }
        head += "\r\n"
        return Array(head.utf8) + request.body
    }

    /// Reads one response (Content-Length or chunked framing; no body for 1xx/204/304/HEAD).
    public func readResponse(forHead: Bool = false) throws -> HTTPResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { throw Failure(description: "empty response head") }
        let statusText = lines.removeFirst()
        let statusLine = statusText.split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(headText)")
        }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header line \(line)") }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces)
        }
        var body: [UInt8] = []
        if forHead || status == 204 || status == 304 || status < 200 {
            // no body
        } else if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            while true {
                let lineEnd = try readUntil([13, 10])
                let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                buffer.removeFirst(lineEnd + 2)
                guard let size = Int(sizeText.trimmingSpaces, radix: 16) else { throw Failure(description: "bad chunk size") }
                if size == 0 { _ = try readUntil([13, 10]); buffer.removeFirst(2); break }
                try fill(size + 2)
                body += buffer[0..<size]
                buffer.removeFirst(size + 2)
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            try fill(length)
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while let chunk = try readSome() { buffer += chunk }
            body = buffer
            buffer = []
        }
        ExchangeRecorder.record(request: awaited.map { HTTPRequest(method: $0.method, target: $0.target, headers: $0.headers) },
                                statusLine: statusText, headers: headers, body: body)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closed the connection (read returns EOF) within the timeout.
    public func isClosedByPeer() -> Bool {
        while true {
            do {
                guard let chunk = try readSome() else { return true }
                buffer += chunk
            } catch {
                return false
            }
        }
    }

    private func readUntil(_ terminator: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= terminator.count {
                for i in searchFrom...(buffer.count - terminator.count) where buffer[i..<(i + terminator.count)].elementsEqual(terminator) {
                    return i
                }
                searchFrom = buffer.count - terminator.count + 1
            }
            guard let chunk = try readSome() else { throw Failure(description: "connection closed mid-response") }
            buffer += chunk
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            guard let chunk = try readSome() else { throw Failure(description: "connection closed mid-body") }
            buffer += chunk
        }
    }

    /// nil on EOF; throws on timeout or error.
    private func readSome() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return Array(chunk[0..<n]) }
            if n == 0 { return nil }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return nil }
            throw Failure(description: errno == EAGAIN ? "timed out waiting for the server" : "recv failed: errno \(errno)")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingSpaces }
}
