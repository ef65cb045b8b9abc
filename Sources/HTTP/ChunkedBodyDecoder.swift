/// The chunked transfer coding (RFC 9112 §7.1) as both parsers read it: chunk-size lines
/// (extensions ignored), chunk data, and a trailer section that is checked and dropped.
/// Requests and responses differ only in what they make of a failure.
///
/// ```swift
/// var chunks = ChunkedBodyDecoder()
/// switch chunks.decode(data, from: pos, into: &body, maxBodyBytes: 1 << 20, maxTrailerBytes: 16 << 10) {
/// case .needMore(let used): ...   // keep data[used...]
/// case .complete(let used): ...   // the body is whole; the next message starts at used
/// case .failure(let error): ...   // status 400, 413 or 431 and a message
/// }
/// ```
struct ChunkedBodyDecoder: Sendable, Equatable {
    enum State: Sendable, Equatable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
    }

    enum Outcome {
        /// Every byte before `used` is taken; the rest must be offered again with more.
        case needMore(used: Int)
        case complete(used: Int)
        case failure(HTTPParseError)
    }

    var state = State.size
    private var trailerBytes = 0

    mutating func decode(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        into body: inout [UInt8],
        maxBodyBytes: Int,
        maxTrailerBytes: Int
    ) -> Outcome {
        var pos = start
        let count = data.count
        while true {
            switch state {
            case .size:
                guard let lf = HTTPRequestParser.firstLF(data, from: pos) else {
                    if count - pos > 4096 { return .failure(.bad("a chunk-size line is longer than 4096 bytes")) }
                    return .needMore(used: pos)
                }
                let size: Int
                switch HTTPRequestParser.parseChunkSize(data, from: pos, to: lf) {
                case .failure(let error): return .failure(error)
                case .success(let value): size = value
                }
                pos = lf + 1
                if size == 0 {
                    trailerBytes = 0
                    state = .trailers
                } else if size > maxBodyBytes - body.count {
                    return .failure(
                        HTTPParseError(status: 413, message: "the body is larger than \(maxBodyBytes) bytes")
                    )
                } else {
                    state = .data(remaining: size)
                }

            case .data(let remaining):
                let take = min(remaining, count - pos)
                if take > 0 {
                    body.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[pos..<pos + take]))
                    pos += take
                }
                if take < remaining {
                    state = .data(remaining: remaining - take)
                    return .needMore(used: pos)
                }
                state = .dataEnd

            case .dataEnd:
                guard pos < count else { return .needMore(used: pos) }
                if data[pos] == .lf {
                    pos += 1
                } else if data[pos] == .cr {
                    guard pos + 1 < count else { return .needMore(used: pos) }
                    guard data[pos + 1] == .lf else { return .failure(.bad("chunk data is not followed by CRLF")) }
                    pos += 2
                } else {
                    return .failure(.bad("chunk data is longer than its chunk size"))
                }
                state = .size

            case .trailers:
                let tooLarge = HTTPParseError(
                    status: 431,
                    message: "the trailer section is larger than \(maxTrailerBytes) bytes"
                )
                guard let lf = HTTPRequestParser.firstLF(data, from: pos) else {
                    // + 1: a CR may still wait for its LF.
                    if trailerBytes + (count - pos) > maxTrailerBytes + 1 { return .failure(tooLarge) }
                    return .needMore(used: pos)
                }
                let lineEnd = lf > pos && data[lf - 1] == .cr ? lf - 1 : lf
                if lineEnd == pos {
                    state = .size
                    return .complete(used: lf + 1)
                }
                trailerBytes += lf + 1 - pos
                if trailerBytes > maxTrailerBytes { return .failure(tooLarge) }
                // Trailers are checked for syntax and dropped: nothing here needs them.
                if case .failure(let error) = HTTPRequestParser.parseField(data, from: pos, to: lineEnd) {
                    return .failure(error)
                }
                pos = lf + 1
            }
        }
    }
}
