#if canImport(Glibc)
import Glibc
#endif
import HTTP
import JSON

/// ``ServerConnection`` to a server at `http://host:port`, over one keep-alive HTTP/1.1
/// connection of its own (blocking; the runner is sequential by design).
///
/// ```swift
/// let server = try HTTPServerConnection(url: "http://127.0.0.1:8080")
/// try server.request("GET", "/admin/clock", body: nil)
/// ```
public final class HTTPServerConnection: ServerConnection {
    public let baseURL: String
    private let host: String
    private let port: UInt16
    private let adminToken: String?
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []

    public init(url: String, adminToken: String? = nil) throws(ServerFailure) {
        let parsed: HTTPURL
        do {
            parsed = try HTTPURL(parsing: url)
        } catch {
            throw ServerFailure("--server: \(error)")
        }
        guard !parsed.isSecure else { throw ServerFailure("--server takes an http:// URL, not '\(url)'") }
        guard parsed.pathPrefix.isEmpty, parsed.query == nil else {
            throw ServerFailure("--server takes the server's root URL (http://host:port), not '\(url)'")
        }
        host = parsed.host == "localhost" ? "127.0.0.1" : parsed.host
        port = UInt16(parsed.port)
        baseURL = "http://" + parsed.authority
        self.adminToken = adminToken
    }

    deinit { disconnect() }

    public func request(_ method: String, _ path: String, body: JSON?) throws(ServerFailure) -> ServerReply {
        do {
            return try attempt(method, path, body)
        } catch {
            // A keep-alive connection the server closed meanwhile: one fresh try.
            disconnect()
            return try attempt(method, path, body)
        }
    }

    private func attempt(_ method: String, _ path: String, _ body: JSON?) throws(ServerFailure) -> ServerReply {
        if fd < 0 { try connect() }
        let payload = body?.serialized() ?? []
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: application/json\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        if let adminToken { head += "Authorization: Bearer \(adminToken)\r\n" }
        head += "Content-Length: \(payload.count)\r\n\r\n"
        try writeAll(Array(head.utf8) + payload)
        let (status, headers) = try readHead()
        var bodyBytes: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            bodyBytes = []
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            bodyBytes = try readChunked()
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            bodyBytes = try readExactly(length)
        } else {
            bodyBytes = try readToEnd()
        }
        if headers["connection"]?.lowercased() == "close" { disconnect() }
        guard !bodyBytes.isEmpty else { return ServerReply(status: status, json: nil) }
        return ServerReply(status: status, json: try? JSON.parse(bodyBytes))
    }

    private func connect() throws(ServerFailure) {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw ServerFailure("socket(): \(String(cString: strerror(errno)))") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else {
            Glibc.close(s)
            throw ServerFailure("'\(host)' is not an IPv4 address (give --server as http://127.0.0.1:PORT)")
        }
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(s)
            throw ServerFailure("cannot connect to \(baseURL): \(why)")
        }
        fd = s
        buffer = []
    }

    private func disconnect() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        buffer = []
    }

    private func writeAll(_ bytes: [UInt8]) throws(ServerFailure) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw ServerFailure("write to \(baseURL) failed") }
            offset += n
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws(ServerFailure) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw ServerFailure("reading from \(baseURL) failed: \(String(cString: strerror(errno)))") }
            if n == 0 { return false }
            buffer.append(contentsOf: chunk[..<n])
            return true
        }
    }

    private func readLine() throws(ServerFailure) -> String {
        while true {
            if let i = buffer.indices.dropFirst().first(where: { buffer[$0] == 10 && buffer[$0 - 1] == 13 }) {
                let line = String(decoding: buffer[..<(i - 1)], as: UTF8.self)
                buffer.removeSubrange(...i)
                return line
            }
            guard try fill() else { throw ServerFailure("\(baseURL) closed the connection mid-response") }
        }
    }

    private func readHead() throws(ServerFailure) -> (Int, [String: String]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ServerFailure("bad status line from \(baseURL): \(statusLine)") }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingSpaces()
        }
        return (status, headers)
    }

    private func readExactly(_ count: Int) throws(ServerFailure) -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ServerFailure("\(baseURL) closed the connection mid-body") }
        }
        let out = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return out
    }

    private func readChunked() throws(ServerFailure) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            guard let size = Int(sizeLine.split(separator: ";").first.map(String.init)?.trimmingSpaces() ?? "", radix: 16) else {
                throw ServerFailure("bad chunk size from \(baseURL)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return out
            }
            out += try readExactly(size)
            _ = try readLine()
        }
    }

    private func readToEnd() throws(ServerFailure) -> [UInt8] {
        while try fill() {}
        let out = buffer
        disconnect()
        return out
    }
}
