// libFuzzer target: arbitrary bytes into HTTP2ServerSession, as a client connection would
// send them after the preface was detected. The first input byte picks the read size and
// whether the real preface is prepended (so the fuzzer spends its time past it).
import HTTP
import HTTP2

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Server(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    var input: [UInt8] = []
    if control & 0x80 != 0 {
        input += HTTP2Preface.bytes
        input += [0, 0, 0, 4, 0, 0, 0, 0, 0]  // an empty SETTINGS frame
    }
    input += UnsafeBufferPointer(start: data + 1, count: size - 1)
    let chunk = Int(control & 0x3F) + 1
    let limits = HTTPLimits(maxBodyBytes: 2048, maxTargetBytes: 512, maxHeaderBytes: 4096)
    guard let session = try? HTTP2ServerSession(configuration: .init(maxConcurrentStreams: 8, limits: limits)) else {
        return 0
    }
    var output: [UInt8] = []
    var answered = 0
    var offset = 0
    while offset < input.count {
        let end = min(input.count, offset + chunk)
        let events = input[offset..<end].withUnsafeBytes { session.feed($0) }
        offset = end
        for event in events {
            if case .rejected(let stream, let error) = event {
                session.respond(HTTPResponse(status: error.status, body: Array(error.message.utf8)), to: stream)
                continue
            }
            guard case .request(let stream, let request) = event else { continue }
            answered += 1
            switch answered % 4 {
            case 0: session.reset(stream)
            case 1:
                session.respond(
                    HTTPResponse(
                        status: 200,
                        headers: ["Content-Type": "text/plain"],
                        body: Array(request.target.utf8) + request.body
                    ),
                    to: stream
                )
            case 2: session.respond(HTTPResponse(status: 304, headers: ["ETag": "W/\"x\""]), to: stream)
            default:
                session.respond(HTTPResponse(status: 404, body: [UInt8](repeating: 0x41, count: 70_000)), to: stream)
            }
        }
        session.drainOutput(into: &output)
        output.removeAll(keepingCapacity: true)
        if session.isFinished { break }
    }
    session.terminate(graceful: true)
    session.drainOutput(into: &output)
    return 0
}
