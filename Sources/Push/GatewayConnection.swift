import Dispatch
import HTTP
import HTTP2
import Sockets
import TLS

/// One HTTP/2 connection to a push gateway: a non-blocking socket from `Sockets`, Dispatch
/// read/write sources and a timer, an ``HTTP2ClientSession`` for the framing and, for
/// `https://` gateways, a ``TLSSession`` between the two (h2c otherwise).
///
/// The TLS session is the transport seam: bytes read from the socket go through it and come
/// out as plaintext for the HTTP/2 session; the session's output goes through it before the
/// socket. The handshake runs on the connection's queue a flight at a time, within the connect
/// timeout, and the gateway must agree to `h2` by ALPN.
///
/// Confined to its owner's serial queue: every method is called there and every event is
/// reported there. Each request sent is answered by exactly one `.response` or
/// `.streamFailed`, or listed in `.closed(unfinished:)`. (`@unchecked Sendable`: confined to
/// `queue`, it is only handed to Dispatch closures that run there.)
final class GatewayConnection: @unchecked Sendable {
    enum Event {
        /// The peer's SETTINGS arrived.
        case ready(maxConcurrentStreams: Int)
        case settingsChanged(maxConcurrentStreams: Int)
        case response(requestID: Int, HTTPResponse)
        /// The stream ended without an answer (reset, or no answer in time).
        case streamFailed(requestID: Int, reason: String)
        /// GOAWAY: send nothing new here.
        case goingAway
        /// The connection is over (connect failed, peer closed, stalled, protocol error).
        case closed(reason: String, unfinished: [Int])
    }

    struct Deadline: Equatable {
        var streamID: Int32
        var sentAt: UInt64
        var deadline: UInt64
    }

    /// `open` once the transport is ready (TCP for h2c, a finished TLS handshake after
    /// `handshaking`); the connect deadline still runs until the peer's SETTINGS arrive
    /// (`.ready`), so every handshake is part of connecting.
    enum Phase { case connecting, handshaking, open, closed }

    /// What a TLS connection needs: the shared context, the name the certificate must carry,
    /// and the client's scratch buffer for decrypted bytes.
    struct TLSSettings {
        let context: TLSContext
        let peerName: String
        let plaintextBuffer: UnsafeMutableRawBufferPointer
    }

    let id: Int
    let queue: DispatchQueue
    let address: SocketAddress
    let label: String
    let connectTimeoutNanoseconds: UInt64
    let requestTimeoutNanoseconds: UInt64
    let readBuffer: UnsafeMutableRawBufferPointer
    let onEvent: (Event) -> Void
    let tlsSettings: TLSSettings?

    private(set) var phase = Phase.connecting
    private var fd: Int32 = -1
    private var session: HTTP2ClientSession?
    private var tls: TLSSession?
    /// The HTTP/2 session's output before encryption (TLS only).
    private var plaintextOutput: [UInt8] = []
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var writeResumed = false
    private var timer: DispatchSourceTimer?
    /// Closes the descriptor once every Dispatch source on it has been cancelled.
    private var closer: DescriptorCloser?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var streams: [Int32: Int] = [:]
    private var deadlines = FIFO<Deadline>()
    private var connectDeadline: UInt64 = 0
    private var lastReadAt: UInt64 = 0
    private var settings = SettingsWatch()
    private var lastMaxStreams = 0
    private let configuration: HTTP2ClientSession.Configuration

    /// The highest number of streams this connection ever had open at once.
    private(set) var maxOpenStreams = 0

    init(id: Int, queue: DispatchQueue, address: SocketAddress, authority: String, label: String, tls: TLSSettings? = nil,
         connectTimeoutNanoseconds: UInt64, requestTimeoutNanoseconds: UInt64,
         readBuffer: UnsafeMutableRawBufferPointer, onEvent: @escaping (Event) -> Void) {
        self.id = id
        self.queue = queue
        self.address = address
        self.label = label
        self.connectTimeoutNanoseconds = connectTimeoutNanoseconds
        self.requestTimeoutNanoseconds = requestTimeoutNanoseconds
        self.readBuffer = readBuffer
        self.onEvent = onEvent
        self.tlsSettings = tls
        self.configuration = HTTP2ClientSession.Configuration(scheme: tls == nil ? "http" : "https", defaultAuthority: authority,
                                                              maxResponseBodyBytes: 64 << 10)
    }

    var openStreamCount: Int { streams.count }

    /// Starts connecting; the outcome arrives as `.ready` or `.closed`, never synchronously.
    func start() {
        let opened: (fd: Int32, connected: Bool)
        do {
            opened = try Posix.startConnect(to: address)
        } catch {
            phase = .closed
            let reason = "connect to \(label) failed: \(Self.describe(error))"
            queue.async { [self] in onEvent(.closed(reason: reason, unfinished: [])) }
            return
        }
        fd = opened.fd
        let closer = DescriptorCloser(fd: opened.fd)
        self.closer = closer
        connectDeadline = DispatchTime.now().uptimeNanoseconds &+ connectTimeoutNanoseconds
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.timerFired() }
        self.timer = timer
        timer.resume()
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        write.setEventHandler { [weak self] in self?.writable() }
        closer.sources += 1
        write.setCancelHandler { closer.sourceCancelled() }
        writeSource = write
        writeResumed = true
        write.resume()
        armTimer()
    }

    /// Puts one request on a new stream; nil when sent, else why it could not be.
    func send(_ request: HTTPRequest, requestID: Int) -> String? {
        guard phase == .open, let session else { return "the connection to \(label) is not open" }
        do {
            let streamID = try session.submit(request)
            streams[streamID] = requestID
            maxOpenStreams = max(maxOpenStreams, streams.count)
            let now = DispatchTime.now().uptimeNanoseconds
            deadlines.append(Deadline(streamID: streamID, sentAt: now, deadline: now &+ requestTimeoutNanoseconds))
            return nil
        } catch {
            return "HTTP/2 request to \(label) not sent: \(error)"
        }
    }

    /// Writes whatever the session has ready (through TLS when there is TLS).
    func flush() {
        guard phase == .open || phase == .handshaking else { return }
        if let tls {
            if let session {
                session.drainOutput(into: &plaintextOutput)
                if !plaintextOutput.isEmpty {
                    tls.send(plaintextOutput)
                    plaintextOutput.removeAll(keepingCapacity: plaintextOutput.capacity <= 1 << 20)
                }
            }
            tls.drainCiphertext(into: &output)
        } else if let session {
            session.drainOutput(into: &output)
        }
        writeOutput()
    }

    /// Closes now; unfinished requests are reported in `.closed`.
    func close(reason: String) {
        guard phase != .closed else { return }
        phase = .closed
        let unfinished = Array(streams.values)
        streams = [:]
        deadlines = FIFO()
        teardown()
        onEvent(.closed(reason: reason, unfinished: unfinished))
    }

    // MARK: I/O

    private func writable() {
        switch phase {
        case .connecting: connectFinished()
        case .handshaking, .open: writeOutput()
        case .closed: break
        }
    }

    private func connectFinished() {
        let error = Posix.pendingError(fd)
        guard error == 0 else {
            close(reason: "connect to \(label) failed: \(Self.describe(SocketError(call: "connect", errno: error)))")
            return
        }
        lastReadAt = DispatchTime.now().uptimeNanoseconds
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        read.setEventHandler { [weak self] in self?.readable() }
        if let closer {
            closer.sources += 1
            read.setCancelHandler { closer.sourceCancelled() }
        }
        readSource = read
        read.resume()
        if let tlsSettings {
            do {
                let tls = try tlsSettings.context.makeSession(peerName: tlsSettings.peerName)
                self.tls = tls
                phase = .handshaking
                tls.start()
            } catch {
                close(reason: "TLS to \(label) could not start: \(error)")
                return
            }
            flush()
        } else {
            startSession()
        }
    }

    /// The transport is ready (TCP for h2c, a finished handshake with ALPN h2 for TLS): the
    /// HTTP/2 session starts and its preface goes out.
    private func startSession() {
        if let tls {
            guard tls.negotiatedProtocol == "h2" else {
                let offered = tls.negotiatedProtocol.map { "'\($0)'" } ?? "no protocol"
                close(reason: "\(label) did not agree to HTTP/2 over TLS (ALPN chose \(offered); APNs and FCM need h2)")
                return
            }
        }
        do {
            session = try HTTP2ClientSession(configuration: configuration)
        } catch {
            close(reason: "HTTP/2 session for \(label) could not start: \(error)")
            return
        }
        phase = .open
        flush()
        armTimer()
    }

    private func readable() {
        guard phase == .open || phase == .handshaking else { return }
        for _ in 0..<16 {
            let result: IOResult
            do {
                result = try Posix.read(fd, into: readBuffer)
            } catch {
                close(reason: "reading from \(label) failed: \(Self.describe(error))")
                return
            }
            switch result {
            case .wouldBlock:
                flush()
                return
            case .endOfFile:
                close(reason: phase == .handshaking ? "\(label) closed the connection during the TLS handshake" : "\(label) closed the connection")
                return
            case .processed(let n):
                lastReadAt = DispatchTime.now().uptimeNanoseconds
                let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<n])
                if let tls { receiveSealed(bytes, tls) } else { receivePlaintext(bytes) }
                guard phase == .open || phase == .handshaking else { return }
                if n < readBuffer.count { flush(); return }
            }
        }
        flush()
    }

    /// Ciphertext from the socket: the handshake advances; decrypted bytes go to the HTTP/2 session.
    private func receiveSealed(_ bytes: UnsafeRawBufferPointer, _ tls: TLSSession) {
        tls.receive(bytes)
        guard let buffer = tlsSettings?.plaintextBuffer else { return }
        let outcome = tls.readPlaintext(into: buffer) { plaintext in
            if phase == .handshaking { startSession() }
            if phase == .open { receivePlaintext(plaintext) }
        }
        if phase == .handshaking, tls.isHandshakeComplete { startSession() }
        switch outcome {
        case .needMore: break
        case .closed: close(reason: "\(label) closed the TLS session")
        case .failed(let reason): close(reason: "TLS with \(label) failed: \(reason)")
        }
    }

    private func receivePlaintext(_ bytes: UnsafeRawBufferPointer) {
        guard phase == .open, let session else { return }
        settings.observe(bytes)
        let events = session.feed(bytes)
        handle(events)
        guard phase == .open else { return }
        checkSettings()
    }

    private func handle(_ events: [HTTP2ClientSession.Event]) {
        for event in events {
            guard phase == .open else { return }
            switch event {
            case .response(let streamID, let response):
                if let requestID = streams.removeValue(forKey: streamID) {
                    onEvent(.response(requestID: requestID, response))
                }
            case .reset(let streamID, let code):
                if let requestID = streams.removeValue(forKey: streamID) {
                    onEvent(.streamFailed(requestID: requestID, reason: "\(label) reset the stream (\(code))"))
                }
            case .goaway(_, let code):
                onEvent(.goingAway)
                if code != .noError, streams.isEmpty {
                    close(reason: "\(label) sent GOAWAY (\(code))")
                }
            case .connectionError(let message):
                close(reason: "HTTP/2 error talking to \(label): \(message)")
            }
        }
    }

    private func checkSettings() {
        guard settings.complete, let session else { return }
        let maxStreams = session.peerMaxConcurrentStreams
        if !settings.reported {
            settings.reported = true
            lastMaxStreams = maxStreams
            onEvent(.ready(maxConcurrentStreams: maxStreams))
        } else if maxStreams != lastMaxStreams {
            lastMaxStreams = maxStreams
            onEvent(.settingsChanged(maxConcurrentStreams: maxStreams))
        }
    }

    private func writeOutput() {
        while outputOffset < output.count {
            let result: IOResult
            do {
                result = try output.withUnsafeBytes { raw in
                    try Posix.write(fd, UnsafeRawBufferPointer(rebasing: raw[outputOffset...]))
                }
            } catch {
                close(reason: "writing to \(label) failed: \(Self.describe(error))")
                return
            }
            switch result {
            case .processed(let n):
                outputOffset += n
            case .wouldBlock, .endOfFile:
                if !writeResumed, let writeSource {
                    writeResumed = true
                    writeSource.resume()
                }
                return
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        outputOffset = 0
        if writeResumed, let writeSource {
            writeResumed = false
            writeSource.suspend()
        }
    }

    // MARK: Timeouts

    /// One repeating tick per connection checks deadlines (a quarter of the request timeout,
    /// 5 ms to 250 ms), instead of re-arming a timer per request: timeouts may fire up to one
    /// tick late, and a fan-out of 100,000 requests costs the Dispatch manager nothing extra.
    private func armTimer() {
        guard let timer, phase != .closed else { return }
        let tick = min(max(requestTimeoutNanoseconds / 4, 5_000_000), 250_000_000)
        let now = DispatchTime.now().uptimeNanoseconds
        let handshaking = phase == .connecting || phase == .handshaking || !settings.reported
        let first = handshaking ? min(connectDeadline, now &+ tick) : now &+ tick
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: first), repeating: .nanoseconds(Int(tick)), leeway: .milliseconds(5))
    }

    private func timerFired() {
        let now = DispatchTime.now().uptimeNanoseconds
        switch phase {
        case .closed:
            return
        case .connecting, .handshaking:
            if now >= connectDeadline {
                let what = phase == .handshaking ? "the TLS handshake with" : "connect to"
                close(reason: "\(what) \(label) timed out after \(connectTimeoutNanoseconds / 1_000_000) ms")
                return
            }
        case .open:
            // Connecting ends with the peer's SETTINGS, not with TCP: a peer that accepts and
            // never speaks HTTP/2 would otherwise hold every queued request forever.
            if !settings.reported {
                if now >= connectDeadline {
                    close(reason: "connect to \(label) timed out after \(connectTimeoutNanoseconds / 1_000_000) ms: "
                        + "TCP connected but no HTTP/2 SETTINGS arrived")
                }
                return
            }
            // Answered streams leave their entries behind; drop them from the front first.
            while let head = deadlines.first, streams[head.streamID] == nil { _ = deadlines.popFirst() }
            while let head = deadlines.first, head.deadline <= now {
                _ = deadlines.popFirst()
                guard let requestID = streams[head.streamID] else { continue }
                let waited = "no answer from \(label) within \(requestTimeoutNanoseconds / 1_000_000) ms"
                if lastReadAt < head.sentAt {
                    close(reason: waited + " (connection stalled)")
                    return
                }
                streams[head.streamID] = nil
                session?.cancel(head.streamID)
                onEvent(.streamFailed(requestID: requestID, reason: waited))
                guard phase == .open else { return }
            }
            flush()
        }
    }

    // MARK: Teardown

    private func teardown() {
        timer?.cancel()
        timer = nil
        session = nil
        tls = nil
        if let writeSource {
            if !writeResumed { writeSource.resume() }
            writeSource.cancel()
        }
        readSource?.cancel()
        writeSource = nil
        readSource = nil
        closer?.released()
        closer = nil
        fd = -1
    }

    /// A connection dropped without `close` (its client went away) still releases its
    /// sources and descriptor.
    deinit {
        guard phase != .closed else { return }
        timer?.cancel()
        if let writeSource {
            if !writeResumed { writeSource.resume() }
            writeSource.cancel()
        }
        readSource?.cancel()
        if let closer { queue.async { closer.released() } }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? SocketError {
            let text = e.description
            let marker = Array(" failed: ".utf8)
            let bytes = Array(text.utf8)
            if bytes.count >= marker.count {
                for i in 0...(bytes.count - marker.count) where Array(bytes[i..<(i + marker.count)]) == marker {
                    return String(decoding: bytes[(i + marker.count)...], as: UTF8.self)
                }
            }
            return text
        }
        return "\(error)"
    }
}

/// Notices when the peer's first frame (its SETTINGS, which the server preface must start
/// with) has been fully fed to the session, so the peer's limits are known.
struct SettingsWatch {
    private var header: [UInt8] = []
    private var needed: Int?
    private var seen = 0
    var reported = false

    var complete: Bool { needed.map { seen >= $0 } ?? false }

    mutating func observe(_ bytes: UnsafeRawBufferPointer) {
        guard !complete else { return }
        var i = 0
        while header.count < 9 && i < bytes.count {
            header.append(bytes[i])
            i += 1
        }
        if needed == nil, header.count == 9 {
            needed = 9 + (Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2]))
        }
        seen += bytes.count
    }
}

/// Owns a socket descriptor shared by Dispatch sources: it is closed only after the last
/// source's cancel handler ran (closing earlier could hand the number to a new socket while a
/// source still watches it). Touched on the owning queue only.
final class DescriptorCloser: @unchecked Sendable {
    let fd: Int32
    var sources = 0
    private var ownerReleased = false
    private var closed = false

    init(fd: Int32) { self.fd = fd }

    func sourceCancelled() {
        sources -= 1
        closeIfDone()
    }

    /// The connection let go of the descriptor (after cancelling its sources).
    func released() {
        ownerReleased = true
        closeIfDone()
    }

    private func closeIfDone() {
        guard ownerReleased, sources == 0, !closed else { return }
        closed = true
        Posix.close(fd)
    }
}
