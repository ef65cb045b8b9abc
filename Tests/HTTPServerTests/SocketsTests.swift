import Glibc
import Sockets
import Testing

@Suite struct SocketsTests {
    @Test func resolvesNumericAddressesAndNames() throws {
        #expect(try SocketAddress.resolve(host: "127.0.0.1", port: 80).family == AF_INET)
        #expect(try SocketAddress.resolve(host: "0.0.0.0", port: 80).family == AF_INET)
        #expect(try SocketAddress.resolve(host: "::1", port: 80).family == AF_INET6)
        #expect(try SocketAddress.resolve(host: "[::1]", port: 80).description == "[::1]:80")
        let localhost = try SocketAddress.resolve(host: "localhost", port: 80)
        #expect(localhost.family == AF_INET || localhost.family == AF_INET6)
        #expect(throws: SocketError.self) { try SocketAddress.resolve(host: "no such host.invalid", port: 80) }
        #expect(throws: SocketError.self) { try SocketAddress.resolve(host: "127.0.0.1", port: 70000) }
    }

    @Test func reportsThePortTheKernelPicked() throws {
        for host in ["127.0.0.1", "::1", "localhost"] {
            let listener = try TCPListener.open(host: host, port: 0)
            defer { Posix.close(listener.fd) }
            #expect(listener.port > 0, "\(host)")
        }
    }

    @Test func reportsAnAddressInUse() throws {
        let first = try TCPListener.open(host: "127.0.0.1", port: 0)
        defer { Posix.close(first.fd) }
        #expect(throws: SocketError.self) { try TCPListener.open(host: "127.0.0.1", port: first.port) }
        do {
            _ = try TCPListener.open(host: "127.0.0.1", port: first.port)
        } catch let error as SocketError {
            #expect(error.isAddressInUse)
            #expect(error.description.contains("127.0.0.1:\(first.port)"))
        }
    }

    @Test func readsWouldBlockAndEndOfFileWithoutErrors() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { Posix.close(pair[0]) }
        try Posix.setNonBlocking(pair[0])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        #expect(try Posix.read(pair[0], into: buffer) == .wouldBlock)
        _ = try Array("hi".utf8).withUnsafeBytes { try Posix.write(pair[1], $0) }
        #expect(try Posix.read(pair[0], into: buffer) == .processed(2))
        Posix.close(pair[1])
        #expect(try Posix.read(pair[0], into: buffer) == .endOfFile)
    }
}
