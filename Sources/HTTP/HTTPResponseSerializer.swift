/// Writes HTTP/1.1 responses as bytes: status line, fields, framing, body, in one buffer.
///
/// The server owns framing: `Content-Length`, `Transfer-Encoding` and `Connection` in the
/// response's own fields are dropped and written from the facts instead. Status lines and
/// common framing lines are pre-encoded, so a response costs a few `memcpy`s.
///
/// ```swift
/// var out: [UInt8] = []
/// HTTPResponseSerializer.write(HTTPResponse(status: 204), to: &out, keepAlive: true)
/// // "HTTP/1.1 204 No Content\r\n\r\n"
/// ```
public enum HTTPResponseSerializer {
    /// `HTTP/1.1 100 Continue` with its empty line: the interim answer to `Expect: 100-continue`.
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends `response` to `out`.
    /// - Parameters:
    ///   - keepAlive: false adds `Connection: close` (the server closes after writing).
    ///   - requestVersion: an HTTP/1.0 request that keeps the connection gets `Connection: keep-alive`.
    ///   - headOnly: the answer to `HEAD`: framing as for the body, body left out.
    ///   - date: a `Date` field written after the response's own, as framing is: the server
    ///     owns it, and adding it to `response.headers` would copy them for every answer.
    public static func write(
        _ response: HTTPResponse,
        to out: inout [UInt8],
        keepAlive: Bool,
        requestVersion: HTTPVersion = .http1_1,
        headOnly: Bool = false,
        date: String? = nil
    ) {
        writeHead(
            response,
            to: &out,
            keepAlive: keepAlive,
            requestVersion: requestVersion,
            framing: .length,
            date: date
        )
        let status = (100...599).contains(response.status) ? response.status : 500
        if status >= 200 && status != 204 && status != 304 && !headOnly {
            out.append(contentsOf: response.body)
        }
    }

    /// The head of a streamed response (``HTTPReply/stream``): chunked on HTTP/1.1; an
    /// HTTP/1.0 peer gets a body that ends when the connection closes. The connection
    /// closes after the stream either way.
    public static func writeStreamHead(
        _ response: HTTPResponse,
        to out: inout [UInt8],
        requestVersion: HTTPVersion,
        date: String? = nil
    ) {
        writeHead(
            response,
            to: &out,
            keepAlive: false,
            requestVersion: requestVersion,
            framing: requestVersion == .http1_0 ? .untilClose : .chunked,
            date: date
        )
    }

    /// One chunk of a chunked body (RFC 9112 §7.1); nothing for no bytes (that would end it).
    public static func appendChunk(_ bytes: [UInt8], to out: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        out.append(contentsOf: Array(String(bytes.count, radix: 16).utf8))
        out.append(.cr)
        out.append(.lf)
        out.append(contentsOf: bytes)
        out.append(.cr)
        out.append(.lf)
    }

    /// The zero-length chunk that ends a chunked body.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    private enum Framing { case length, chunked, untilClose }

    private static func writeHead(
        _ response: HTTPResponse,
        to out: inout [UInt8],
        keepAlive: Bool,
        requestVersion: HTTPVersion,
        framing: Framing,
        date: String?
    ) {
        let status = (100...599).contains(response.status) ? response.status : 500
        out.append(contentsOf: statusLines[status])
        for field in response.headers.fields {
            let name = field.name.utf8
            switch name.count {
            case 10 where HTTPHeaders.namesEqual(field.name, "connection"): continue
            case 14 where HTTPHeaders.namesEqual(field.name, "content-length"): continue
            case 17 where HTTPHeaders.namesEqual(field.name, "transfer-encoding"): continue
            default: break
            }
            out.appendUTF8(field.name)
            out.append(.colon)
            out.append(.sp)
            out.appendUTF8(field.value)
            out.append(.cr)
            out.append(.lf)
        }
        if let date {
            out.append(contentsOf: datePrefix)
            out.appendUTF8(date)
            out.append(.cr)
            out.append(.lf)
        }
        if !keepAlive {
            out.append(contentsOf: connectionClose)
        } else if requestVersion == .http1_0 {
            out.append(contentsOf: connectionKeepAlive)
        }
        // RFC 9110 §8.6: no Content-Length on 1xx and 204; a 304 has no body to measure.
        let bodyAllowed = status >= 200 && status != 204 && status != 304
        if bodyAllowed && framing == .chunked {
            out.append(contentsOf: transferEncodingChunked)
        } else if bodyAllowed && framing == .length {
            out.append(contentsOf: contentLengthPrefix)
            appendDecimal(response.body.count, to: &out)
            out.append(.cr)
            out.append(.lf)
        }
        out.append(.cr)
        out.append(.lf)
    }

    /// `response` as bytes (tests and one-off writers; servers reuse one buffer).
    public static func bytes(
        _ response: HTTPResponse,
        keepAlive: Bool = true,
        requestVersion: HTTPVersion = .http1_1,
        headOnly: Bool = false,
        date: String? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + response.body.count)
        write(response, to: &out, keepAlive: keepAlive, requestVersion: requestVersion, headOnly: headOnly, date: date)
        return out
    }

    /// `value` in decimal ASCII (a negative one as 0): lengths, statuses, log fields.
    public static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(48 + max(value, 0)))
            return
        }
        if value < 1000 {
            if value >= 100 { out.append(UInt8(48 + value / 100)) }
            out.append(UInt8(48 + value / 10 % 10))
            out.append(UInt8(48 + value % 10))
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while n > 0 && count < 20 {
                buffer[19 - count] = UInt8(48 + n % 10)
                n /= 10
                count += 1
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// `HTTP/1.1 <status> <reason>\r\n` for every status 0...599, encoded once.
    static let statusLines: [[UInt8]] = (0...599).map { status in
        Array("HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))\r\n".utf8)
    }

    static let connectionClose: [UInt8] = Array("Connection: close\r\n".utf8)
    static let datePrefix: [UInt8] = Array("Date: ".utf8)
    static let connectionKeepAlive: [UInt8] = Array("Connection: keep-alive\r\n".utf8)
    static let contentLengthPrefix: [UInt8] = Array("Content-Length: ".utf8)
    static let transferEncodingChunked: [UInt8] = Array("Transfer-Encoding: chunked\r\n".utf8)
}
