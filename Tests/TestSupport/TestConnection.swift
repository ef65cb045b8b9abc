import HTTP
import Sockets

/// One raw TCP connection to a server under test, for tests that must choose the bytes
/// (malformed requests, pipelines, HTTP/2 frames, a stalled TLS handshake) or watch one
/// connection (keep-alive, close). Blocking, on the test's thread, every wait bounded by
/// `timeoutSeconds`, so a server bug fails the test instead of hanging it. Answers are read by
/// the shared ``HTTPResponseParser``; well-formed requests are written by ``HTTPRequestSerializer``.
/// For plain request/answer tests use ``TestHTTPClient`` (the HTTPClient layer).
///
/// ```swift
/// let connection = try TestConnection(port: server.port)
/// try connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
/// #expect(try connection.readResponse().status == 200)
/// ```
public final class TestConnection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The socket (non-blocking), for tests that read it their own way.
    public let fd: Int32
    private let timeoutMilliseconds: Int
    private let peer: String
    /// Read, not yet taken by a response or a text read.
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 65_536)
    /// The read of a response still in progress after a 1xx was returned.
    private var parser: HTTPResponseParser?
    /// Responses parsed but not returned yet (the final one after a 1xx in the same read).
    private var parsed: [ReceivedResponse] = []
    /// Every byte written, read back by the server's own request parser, so that each final
    /// answer is recorded for httplint with the request it answers (hand-written bytes too).
    private var written = HTTPRequestParser()
    /// Requests written and not answered yet, oldest first. Nil once answers can no longer be
    /// matched to them: the written bytes stopped being HTTP/1.1 requests (frames, garbage: the
    /// answer to bytes that are no request goes unrecorded), or answer bytes were read raw.
    private var unanswered: [HTTPRequest]? = []

    /// Connects to `host` (an IPv4 or IPv6 literal, or a name) on `port`. `receiveBuffer` fixes
    /// the socket's receive buffer (no autotuning), for tests that count what a server holds.
    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 10, receiveBuffer: Int32? = nil) throws {
        timeoutMilliseconds = timeoutSeconds * 1000
        peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        do {
            guard let address = try SocketAddress.lookup(host: host, port: port).first else {
                throw Failure(description: "no address for \(peer)")
            }
            fd = try Posix.connect(to: address, timeoutMilliseconds: timeoutMilliseconds, receiveBuffer: receiveBuffer)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "connect to \(peer) failed: \(error)")
        }
    }

    deinit { Posix.close(fd) }

    // MARK: Writing

    /// Writes `bytes` as they are.
    public func send(_ bytes: [UInt8]) throws {
        noteWritten(bytes)
        var offset = 0
        while offset < bytes.count {
            let result = try bytes[offset...].withUnsafeBytes { try Posix.write(fd, $0) }
            switch result {
            case .processed(let n):
                offset += n
            case .wouldBlock:
                guard try Posix.poll(fd, for: .writable, timeoutMilliseconds: timeoutMilliseconds) else {
                    throw Failure(description: "timed out writing to \(peer) (the server reads nothing)")
                }
            case .endOfFile:
                throw Failure(description: "\(peer) closed the connection while it was written to")
            }
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// ``send(_:)-([UInt8])``, by its other name.
    public func write(_ bytes: [UInt8]) throws { try send(bytes) }

    public func write(_ text: String) throws { try send(Array(text.utf8)) }

    /// Serializes `request` (`Host` added unless it has one, `Content-Length` from the body) and
    /// reads its answer.
    public func send(_ request: HTTPRequest) throws -> ReceivedResponse {
        try send(HTTPRequestSerializer.bytes(request.withJSONTypeForAdminBody(), authority: "127.0.0.1"))
        return try readResponse(head: request.method == "HEAD")
    }

    /// Reads back the requests in `bytes` (continuing any cut off in an earlier write).
    private func noteWritten(_ bytes: [UInt8]) {
        guard unanswered != nil else { return }
        for event in written.feed(bytes) {
            switch event {
            case .request(let request, _): unanswered?.append(request)
            case .expectContinue: break
            case .failure: unanswered = nil
            }
        }
    }

    /// Answer bytes were taken without the response parser: which request the next answer
    /// belongs to is no longer known.
    private func stopMatchingAnswers() {
        unanswered = nil
    }

    /// Half-closes: the server reads the end of the stream, the connection can still be read.
    public func shutdownWrite() { Posix.shutdownWrite(fd) }

    // MARK: Reading

    /// The next response: its framing read by ``HTTPResponseParser`` (no body after HEAD, 1xx,
    /// 204, 304); a 1xx comes back as a response of its own.
    public func readResponse(head: Bool = false) throws -> ReceivedResponse {
        // A final answer goes to httplint with the request it answers, read back from what was
        // written (the oldest unanswered); a 1xx is interim (RFC 9110 lets it go without Date).
        func recorded(_ received: ReceivedResponse) -> ReceivedResponse {
            guard received.status >= 200, let request = unanswered?.first else { return received }
            unanswered?.removeFirst()
            ExchangeRecorder.record(
                request: HTTPRequest(method: request.method, target: request.target, headers: request.headers),
                statusLine: received.statusLine,
                headers: received.headers,
                body: received.body
            )
            return received
        }
        if !parsed.isEmpty { return recorded(parsed.removeFirst()) }
        // Tests write requests as raw bytes: what follows this answer stays for the next read.
        var reading = parser ?? HTTPResponseParser(holdingUnannouncedResponses: true)
        if parser == nil { reading.expectResponse(toHEAD: head) }
        parser = nil
        var events = reading.feed(buffer)
        buffer = []
        while true {
            var finished = false
            for event in events {
                switch event {
                case .informational(let interim): parsed.append(interim)
                case .response(let final):
                    parsed.append(final)
                    finished = true
                case .failure(let error): throw Failure(description: "\(peer) answered badly: \(error.message)")
                }
            }
            if !parsed.isEmpty {
                if finished { buffer = reading.takeBufferedBytes() } else { parser = reading }
                return recorded(parsed.removeFirst())
            }
            guard let chunk = try readChunk() else {
                events = reading.endOfStream()
                if events.isEmpty { throw Failure(description: "\(peer) closed the connection before a response") }
                continue
            }
            events = reading.feed(chunk)
        }
    }

    /// Everything up to and including `marker` (a streamed body's next event, say), raw.
    public func readText(through marker: String) throws -> String {
        let needle = Array(marker.utf8)
        var searched = 0
        while true {
            if buffer.count >= needle.count {
                for i in searched...buffer.count - needle.count where buffer[i..<i + needle.count].elementsEqual(needle)
                {
                    let text = String(decoding: buffer[..<(i + needle.count)], as: UTF8.self)
                    buffer.removeFirst(i + needle.count)
                    stopMatchingAnswers()
                    return text
                }
                searched = buffer.count - needle.count + 1
            }
            guard let chunk = try readChunk() else {
                throw Failure(description: "\(peer) closed the connection before \"\(marker)\"")
            }
            buffer += chunk
        }
    }

    /// True when the server closed the connection (after any bytes it sent are read); false
    /// when it sent more. Throws on the timeout.
    public func readsEndOfStream() throws -> Bool {
        while true {
            if !buffer.isEmpty { return false }
            guard let chunk = try readChunk() else { return true }
            buffer += chunk
        }
    }

    /// True when the server closed the connection within the timeout (bytes it sent first are
    /// skipped); false on the timeout.
    public func isClosedByPeer() -> Bool {
        while true {
            do {
                guard let chunk = try readChunk() else { return true }
                buffer += chunk
            } catch {
                return false
            }
        }
    }

    /// True when a read would not wait now: bytes have arrived, or the server closed.
    public var hasPendingInput: Bool {
        !buffer.isEmpty || ((try? Posix.poll(fd, for: .readable, timeoutMilliseconds: 0)) ?? true)
    }

    /// True when the server has closed the connection by now (end of stream or reset), without
    /// waiting; whatever else has arrived is dropped.
    public func peerHasClosed() -> Bool {
        buffer = []
        stopMatchingAnswers()
        while true {
            let result: IOResult
            do {
                result = try scratch.withUnsafeMutableBytes { try Posix.read(fd, into: $0) }
            } catch {
                return true
            }
            switch result {
            case .processed: continue
            case .endOfFile: return true
            case .wouldBlock: return false
            }
        }
    }

    /// The bytes that arrive next (first those already read), nil at the end of the stream (or
    /// a reset); throws when nothing comes within the timeout.
    public func receiveSome() throws -> [UInt8]? {
        stopMatchingAnswers()
        if !buffer.isEmpty {
            defer { buffer = [] }
            return buffer
        }
        return try readChunk()
    }

    /// What the socket gives next (not the buffer): nil at the end of the stream or a reset.
    private func readChunk() throws -> [UInt8]? {
        while true {
            let result: IOResult
            do {
                result = try scratch.withUnsafeMutableBytes { try Posix.read(fd, into: $0) }
            } catch let error as SocketError where error.isConnectionReset {
                return nil
            }
            switch result {
            case .processed(let n): return Array(scratch[..<n])
            case .endOfFile: return nil
            case .wouldBlock:
                guard try Posix.poll(fd, for: .readable, timeoutMilliseconds: timeoutMilliseconds) else {
                    throw Failure(description: "timed out waiting for \(peer)")
                }
            }
        }
    }
}

extension ReceivedResponse {
    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first value of field `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name] }
}
