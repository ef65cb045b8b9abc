/// Status line and field parsing, and the body framing they decide (RFC 9112 §4, §6.3).
extension HTTPResponseParser {
    enum Body: Equatable {
        /// 1xx other than 101: the final response follows.
        case informational
        case switchingProtocols
        case none
        case length(Int)
        case chunked
        case untilClose
    }

    struct Framing {
        var body: Body
        var keepAlive: Bool
    }

    /// Parses the head in `data[start..<end]` (`end` is where the empty line starts) into
    /// `pending` and works out how the body is framed.
    mutating func parseHead(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to end: Int
    ) -> Result<Framing, HTTPResponseParseError> {
        guard let lf = HTTPRequestParser.firstLF(data, from: start), lf <= end else {
            return .failure(malformed("the response has no status line"))
        }
        if let error = parseStatusLine(data, from: start, to: lf > start && data[lf - 1] == .cr ? lf - 1 : lf) {
            return .failure(error)
        }
        var fields: [HTTPField] = []
        fields.reserveCapacity(8)
        var framingFields = FramingFields()
        var lineStart = lf + 1
        while lineStart < end {
            guard let lf = HTTPRequestParser.firstLF(data, from: lineStart) else { break }
            let lineEnd = lf > lineStart && data[lf - 1] == .cr ? lf - 1 : lf
            let field: (name: String, value: String, nameEnd: Int)
            switch HTTPRequestParser.parseField(data, from: lineStart, to: lineEnd) {
            case .failure(let error): return .failure(malformed("a response header field: " + error.message))
            case .success(let value): field = value
            }
            switch framingFields.take(
                name: UnsafeRawBufferPointer(rebasing: data[lineStart..<field.nameEnd]),
                value: field.value
            ) {
            case .contentLengthNotANumber:
                return .failure(malformed("the response's Content-Length '\(field.value)' is not one decimal number"))
            case .contentLengthsDisagree(let previous, let length):
                return .failure(malformed("the response's Content-Length fields disagree (\(previous) and \(length))"))
            case nil:
                break
            }
            fields.append(HTTPField(field.name, field.value))
            lineStart = lf + 1
        }
        pending.headers.fields = fields

        let status = pending.status
        let keepAlive = framingFields.keepAlive(pending.version)
        let codings = framingFields.codings
        let contentLength = framingFields.contentLength
        if (100..<200).contains(status) {
            return .success(Framing(body: status == 101 ? .switchingProtocols : .informational, keepAlive: false))
        }
        if expected[expectedStart] || status == 204 || status == 304 {
            return .success(Framing(body: .none, keepAlive: keepAlive))
        }
        if !codings.isEmpty {
            if contentLength != nil {
                return .failure(malformed("the response carries both Transfer-Encoding and Content-Length"))
            }
            guard let last = codings.last, last.lowercasedASCII == "chunked" else {
                // RFC 9112 §6.3: a response whose final coding is not chunked ends at the close.
                return .success(Framing(body: .untilClose, keepAlive: false))
            }
            for coding in codings.dropLast() {
                return .failure(
                    malformed(
                        coding.lowercasedASCII == "chunked"
                            ? "the response applies chunked more than once"
                            : "the response's transfer coding '\(coding)' is not supported (only chunked)"
                    )
                )
            }
            return .success(Framing(body: .chunked, keepAlive: keepAlive))
        }
        if let contentLength {
            if contentLength > limits.maxBodyBytes {
                return .failure(
                    HTTPResponseParseError(
                        .tooLarge,
                        "the response body (Content-Length \(contentLength)) is larger than \(limits.maxBodyBytes) bytes"
                    )
                )
            }
            return .success(Framing(body: contentLength == 0 ? .none : .length(contentLength), keepAlive: keepAlive))
        }
        return .success(Framing(body: .untilClose, keepAlive: false))
    }

    /// `HTTP/1.1 200 OK` in `data[start..<end]`; the reason phrase may be empty or missing.
    private mutating func parseStatusLine(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to end: Int
    ) -> HTTPResponseParseError? {
        // Made only for an error: building it for every answer cost more than parsing the line.
        var shape: String {
            "the status line \(HTTPResponseParser.preview(data, from: start, to: end)) is not \"HTTP/1.1 200 Reason\""
        }
        guard end - start >= 12,
            data[start] == UInt8(ascii: "H"), data[start + 1] == UInt8(ascii: "T"),
            data[start + 2] == UInt8(ascii: "T"),
            data[start + 3] == UInt8(ascii: "P"), data[start + 4] == UInt8(ascii: "/"), data[start + 5].isDigit,
            data[start + 6] == UInt8(ascii: "."), data[start + 7].isDigit, data[start + 8] == .sp
        else {
            return malformed(shape)
        }
        guard data[start + 5] == UInt8(ascii: "1"),
            data[start + 7] == UInt8(ascii: "1") || data[start + 7] == UInt8(ascii: "0")
        else {
            return malformed(
                "the server answered in HTTP/\(Character(Unicode.Scalar(data[start + 5]))).\(Character(Unicode.Scalar(data[start + 7]))), not HTTP/1.0 or HTTP/1.1"
            )
        }
        var status = 0
        for i in start + 9..<start + 12 {
            guard data[i].isDigit else { return malformed(shape) }
            status = status * 10 + Int(data[i] - 48)
        }
        guard (100...599).contains(status) else { return malformed("the status code \(status) is not in 100...599") }
        guard end == start + 12 || data[start + 12] == .sp else { return malformed(shape) }
        let reasonStart = min(start + 13, end)
        for i in reasonStart..<end where (data[i] < 0x20 && data[i] != .htab) || data[i] == 0x7F {
            return malformed("the reason phrase holds a control character")
        }
        pending.version = data[start + 7] == UInt8(ascii: "1") ? .http1_1 : .http1_0
        pending.status = status
        pending.reason =
            reasonStart < end
            ? String(decoding: UnsafeRawBufferPointer(rebasing: data[reasonStart..<end]), as: UTF8.self) : ""
        return nil
    }

    private func malformed(_ message: String) -> HTTPResponseParseError {
        HTTPResponseParseError(.malformed, message)
    }

    /// Up to 40 bytes of `data[start..<end]`, printable and quoted, for an error message.
    static func preview(_ data: UnsafeRawBufferPointer, from start: Int, to end: Int? = nil) -> String {
        let stop = end ?? data.count
        let cut = min(stop, start + 40)
        let text = String(
            decoding: data[start..<cut].map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: ".") },
            as: UTF8.self
        )
        return "\"\(text)\"" + (stop > cut ? "..." : "")
    }
}
