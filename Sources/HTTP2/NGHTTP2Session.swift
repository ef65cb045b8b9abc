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

    /// Appends every frame nghttp2 has ready to `buffer`. Returns nghttp2's error code when
    /// producing output failed (the session is then unusable), nil otherwise.
    static func drainOutput(of session: OpaquePointer, into buffer: inout [UInt8]) -> Int? {
        while true {
            var chunk: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &chunk)
            if n < 0 { return n }
            guard n > 0, let chunk else { return nil }
            buffer.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
        }
    }

    /// Hands received bytes to nghttp2, which runs the role's callbacks. Returns nghttp2's
    /// error code when the input broke the connection, nil otherwise.
    static func receive(_ bytes: UnsafeRawBufferPointer, into session: OpaquePointer) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let rv = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        return rv < 0 ? rv : nil
    }
}
