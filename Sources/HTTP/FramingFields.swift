/// What a message's framing fields say (RFC 9112 §6 and §9.3): `Content-Length`,
/// `Transfer-Encoding` and the `Connection` options, gathered field by field while either
/// parser reads a head.
struct FramingFields {
    enum Problem {
        case contentLengthNotANumber
        case contentLengthsDisagree(Int, Int)
    }

    var contentLength: Int?
    /// The transfer codings in order, from every `Transfer-Encoding` field.
    var codings: [Substring] = []
    var sawTransferEncoding = false
    var connectionClose = false
    var connectionKeepAlive = false

    /// Notes one field if it is a framing field; a problem with its value comes back.
    mutating func take(name: UnsafeRawBufferPointer, value: String) -> Problem? {
        switch name.count {
        case 10 where name.equalsLowercased("connection"):
            for token in value.split(separator: ",") {
                switch token.trimmingOWS.lowercasedASCII {
                case "close": connectionClose = true
                case "keep-alive": connectionKeepAlive = true
                default: break
                }
            }
        case 14 where name.equalsLowercased("content-length"):
            guard let length = HTTPRequestParser.parseContentLength(value) else { return .contentLengthNotANumber }
            if let previous = contentLength, previous != length { return .contentLengthsDisagree(previous, length) }
            contentLength = length
        case 17 where name.equalsLowercased("transfer-encoding"):
            sawTransferEncoding = true
            for token in value.split(separator: ",") { codings.append(token.trimmingOWS) }
        default:
            break
        }
        return nil
    }

    /// HTTP/1.1 persists unless `close`; HTTP/1.0 only with `keep-alive`.
    func keepAlive(_ version: HTTPVersion) -> Bool {
        version == .http1_0 ? connectionKeepAlive && !connectionClose : !connectionClose
    }
}
