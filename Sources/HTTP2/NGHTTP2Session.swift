import CNghttp2

/// The set-up both session roles share: callbacks installed by the role, and no retained
/// closed streams, so a long-lived connection's memory stays flat.
enum NGHTTP2Session {
    static func make(
        role: String,
        installCallbacks: (OpaquePointer) -> Void,
        create: (UnsafeMutablePointer<OpaquePointer?>, OpaquePointer, OpaquePointer) -> Int32
    ) throws -> OpaquePointer {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw HTTP2Error("out of memory creating nghttp2 callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        installCallbacks(callbacks)
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw HTTP2Error("out of memory creating nghttp2 options")
        }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_closed_streams(option, 1)
        var session: OpaquePointer?
        let rv = create(&session, callbacks, option)
        guard rv == 0, let session else { throw HTTP2Error.library(Int(rv), "creating the HTTP/2 \(role) session") }
        return session
    }
}
