import Glibc
import Sockets
import TestSupport
import Testing

/// The client-side calls `Sockets` offers: name lookup (IPv4 and IPv6), a waiting connect, poll.
@Suite struct LookupAndPollTests {
    @Test func numericAddressesNeedNoLookupAndKeepTheirFamily() throws {
        #expect(try SocketAddress.lookup(host: "127.0.0.1", port: 80).map(\.description) == ["127.0.0.1:80"])
        #expect(try SocketAddress.lookup(host: "::1", port: 80).map(\.description) == ["[::1]:80"])
        #expect(try SocketAddress.lookup(host: "[::1]", port: 8080).map(\.description) == ["[::1]:8080"])
    }

    @Test func localhostResolvesToLoopbackAddressesByNumber() throws {
        let all = try SocketAddress.lookup(host: "localhost", port: 8080)
        #expect(!all.isEmpty)
        for address in all {
            #expect(["127.0.0.1:8080", "[::1]:8080"].contains(address.description), "\(address)")
        }
        // No duplicates, whatever /etc/hosts lists twice.
        #expect(Set(all.map(\.description)).count == all.count)
    }

    @Test func badNamesAndPortsAreClearErrors() {
        #expect(throws: SocketError.self) { try SocketAddress.lookup(host: "no such host.invalid", port: 80) }
        do {
            _ = try SocketAddress.lookup(host: "127.0.0.1", port: -1)
            Issue.record("port -1 accepted")
        } catch {
            #expect("\(error)".contains("port -1 (must be 0...65535)"))
        }
    }

    @Test func connectWaitsAndPollSeesTheAnswer() throws {
        for host in ["127.0.0.1", "::1"] {
            let listener = try TCPListener.open(host: host, port: 0)
            defer { Posix.close(listener.fd) }
            let fd = try Posix.connect(
                to: SocketAddress.resolve(host: host, port: listener.port),
                timeoutMilliseconds: 2000
            )
            defer { Posix.close(fd) }
            #expect(try Posix.poll(fd, for: .writable, timeoutMilliseconds: 1000))
            #expect(try !Posix.poll(fd, for: .readable, timeoutMilliseconds: 20), "nothing sent yet")
            var accepted: Int32?
            for _ in 0..<100 where accepted == nil {
                accepted = try Posix.accept(listener.fd)
                if accepted == nil { _ = try Posix.poll(listener.fd, for: .readable, timeoutMilliseconds: 50) }
            }
            guard let peer = accepted else {
                Issue.record("no connection arrived on \(host)")
                continue
            }
            defer { Posix.close(peer) }
            _ = try Array("ok".utf8).withUnsafeBytes { try Posix.write(peer, $0) }
            #expect(try Posix.poll(fd, for: .readable, timeoutMilliseconds: 1000))
        }
    }

    @Test func aRefusedWaitingConnectNamesTheAddress() throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        do {
            let fd = try Posix.connect(
                to: SocketAddress.resolve(host: "127.0.0.1", port: port),
                timeoutMilliseconds: 1000
            )
            Posix.close(fd)
            Issue.record("connected to a closed port")
        } catch let error as SocketError {
            #expect(error.errno == ECONNREFUSED)
            #expect(error.description == "connect 127.0.0.1:\(port) failed: Connection refused")
        }
    }
}
