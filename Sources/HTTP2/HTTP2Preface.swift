/// Recognises the HTTP/2 client connection preface, so one port can serve HTTP/1.1 and h2c
/// with prior knowledge: the first bytes a connection sends decide its protocol.
///
/// ```swift
/// switch HTTP2Preface.match(firstBytes) {
/// case .http2: /* hand the connection to an HTTP2ServerSession, preface included */
/// case .notHTTP2: /* parse HTTP/1.1 */
/// case .needMoreBytes: /* wait for the next read */
/// }
/// ```
public enum HTTP2Preface {
    /// "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" (RFC 9113 §3.4).
    public static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public enum Match: Sendable, Equatable {
        case http2
        case notHTTP2
        /// Every byte so far agrees with the preface; decide after more arrive.
        case needMoreBytes
    }

    /// Compares the start of a connection's input with the preface.
    public static func match(_ input: some Collection<UInt8>) -> Match {
        var count = 0
        for (byte, expected) in zip(input, bytes) {
            if byte != expected { return .notHTTP2 }
            count += 1
        }
        return count == bytes.count ? .http2 : .needMoreBytes
    }
}
