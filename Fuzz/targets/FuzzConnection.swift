// libFuzzer target: arbitrary bytes sent to a real HTTPServer over loopback, so the
// connection's protocol detection (HTTP/1.1, h2c preface, Upgrade: h2c), both protocol
// handlers and gzip see them exactly as a client would send them. After the input the
// client half-closes; the server must answer what it owes and close within 5 s (a stall
// is a failure, like a crash). The first input byte picks the write size and whether the
// HTTP/2 preface is prepended.
import Glibc
import HTTP
import HTTP2
import HTTPServer

struct FuzzResponder: Responder {
    func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let n = request.target.utf8.count + request.body.count
        switch n % 5 {
        case 0: reply(.close)
        case 1: reply(.response(HTTPResponse(status: 304, headers: ["ETag": "W/\"x\""])))
        case 2:
            let body = Array(String(repeating: "{\"k\":\"\(request.method)\"}", count: 40).utf8)
            reply(.response(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)))
        default:
            reply(.response(HTTPResponse(status: 200, body: Array(request.target.utf8) + request.body)))
        }
    }
}

nonisolated(unsafe) var serverPort: UInt16 = 0
nonisolated(unsafe) var server: HTTPServer?

func startServer() -> UInt16 {
    if serverPort != 0 { return serverPort }
    signal(SIGPIPE, SIG_IGN)
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configuration.limits = HTTPLimits(maxBodyBytes: 8192, maxTargetBytes: 1024, maxHeaderBytes: 4096)
    let instance = HTTPServer(configuration: configuration, responder: FuzzResponder())
    guard let port = try? instance.start() else {
        fputs("could not start the server\n", stderr)
        abort()
    }
    server = instance
    serverPort = UInt16(port)
    return serverPort
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnection(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let port = startServer()
    var input: [UInt8] = []
    if data[0] & 0x80 != 0 { input += HTTP2Preface.bytes }
    input += UnsafeBufferPointer(start: data + 1, count: size - 1)
    let chunk = Int(data[0] & 0x7F) * 8 + 1

    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return 0 }
    var offset = 0
    while offset < input.count {
        let end = min(input.count, offset + chunk)
        let written = input[offset..<end].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written <= 0 { break }  // the server closed on us: fine
        offset += written
    }
    shutdown(fd, Int32(SHUT_WR))
    var buffer = [UInt8](repeating: 0, count: 65536)
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let ready = poll(&pfd, 1, 5000)
        if ready == 0 {
            fputs("the server neither answered nor closed within 5 s after the client EOF\n", stderr)
            abort()
        }
        if ready < 0 { break }
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
    }
    return 0
}
