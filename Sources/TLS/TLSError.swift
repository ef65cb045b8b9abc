import COpenSSL

/// A TLS or key-handling failure, with a message a user can act on (the file, what is wrong,
/// and OpenSSL's own reason when it has one).
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// `message`, followed by the reasons OpenSSL queued on this thread (the queue is emptied).
    static func openSSL(_ message: String) -> TLSError {
        let reasons = drainErrorQueue()
        return TLSError(reasons.isEmpty ? message : "\(message) (\(reasons))")
    }

    /// OpenSSL's queued errors as one line ("" when none), clearing the queue.
    static func drainErrorQueue() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if reasons.count < 3, let text = ERR_reason_error_string(code) { reasons.append(String(cString: text)) }
        }
        return reasons.joined(separator: "; ")
    }
}
