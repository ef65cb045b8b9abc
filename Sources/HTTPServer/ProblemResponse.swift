import HTTP

/// The `application/problem+json` (RFC 9457) answers the transport itself gives:
/// malformed requests and broken limits, before the application sees anything.
enum ProblemResponse {
    static func make(status: Int, detail: String) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(96 + detail.utf8.count)
        body.append(contentsOf: "{\"title\":\"".utf8)
        appendEscaped(HTTPResponse.reasonPhrase(status), to: &body)
        body.append(contentsOf: "\",\"status\":\(status),\"detail\":\"".utf8)
        appendEscaped(detail, to: &body)
        body.append(contentsOf: "\"}\n".utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/problem+json"], body: body)
    }

    static func make(_ error: HTTPParseError) -> HTTPResponse {
        make(status: error.status, detail: error.message)
    }

    private static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex(byte >> 4))
                out.append(hex(byte & 15))
            default: out.append(byte)
            }
        }
    }

    private static func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 48 + nibble : 87 + nibble }
}
