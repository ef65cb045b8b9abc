// libFuzzer target: arbitrary bytes into the HTTP/1.1 request parser, whole and in
// chunks of a size the first byte picks; both ways must find the same requests
// (chunk boundaries must not change what a connection sees).
import Glibc
import HTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1Parser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0] & 0x3F) + 1
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let limits = HTTPLimits(maxBodyBytes: 4096, maxTargetBytes: 512, maxHeaderBytes: 2048)

    var whole = HTTPRequestParser(limits: limits)
    let expected = summary(whole.feed(Array(input)))

    var pieces = HTTPRequestParser(limits: limits)
    var events: [HTTPParserEvent] = []
    var offset = 0
    while offset < input.count {
        var rest = UnsafeRawBufferPointer(rebasing: input[offset..<min(input.count, offset + chunk)])
        offset += rest.count
        while true {
            let (event, used) = pieces.next(rest)
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            guard let event else { break }
            events.append(event)
        }
    }
    let actual = summary(events)
    if actual != expected {
        fputs("whole:   \(expected)\nchunked: \(actual) (chunk \(chunk))\n", stderr)
        abort()
    }
    return 0
}

/// Requests (method, target, body size, keep-alive) and failures, in order.
private func summary(_ events: [HTTPParserEvent]) -> [String] {
    events.compactMap { event in
        switch event {
        case .request(let request, let keepAlive):
            return
                "\(request.method) \(request.target) \(request.version.text) h\(request.headers.count) b\(request.body.count) k\(keepAlive)"
        case .failure(let error):
            return "failure \(error.status)"
        case .expectContinue:
            return nil
        }
    }
}
