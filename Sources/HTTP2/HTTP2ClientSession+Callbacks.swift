import CNghttp2
import HTTP

extension HTTP2ClientSession {
    static func from(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientSession? {
        guard let userData else { return nil }
        return Unmanaged<HTTP2ClientSession>.fromOpaque(userData).takeUnretainedValue()
    }

    static func installClientCallbacks(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let session = HTTP2ClientSession.from(userData),
                let stream = session.streams[Int(frame.pointee.hd.stream_id)]
            else { return 0 }
            if !stream.finalHeadersSeen {  // a 1xx block is replaced by the final one
                stream.headers = HTTPHeaders()
                stream.status = 0
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _,
            frame,
            name,
            nameLength,
            value,
            valueLength,
            _,
            userData in
            guard let frame, let name, let value, let session = HTTP2ClientSession.from(userData),
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
            else { return 0 }
            // Only :status and the kept fields are read: the rest (most of an answer's fields)
            // return before the stream is looked up.
            let isStatus = nameLength == 7 && name[0] == UInt8(ascii: ":") && name[1] == UInt8(ascii: "s")
            let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
            guard isStatus || ((nameLength == 0 || name[0] != UInt8(ascii: ":")) && session.keepsField(nameBytes)),
                let stream = session.streams[Int(frame.pointee.hd.stream_id)], !stream.finalHeadersSeen
            else { return 0 }
            let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
            if isStatus {
                stream.status = statusCode(valueBytes)
            } else {
                stream.headers.add(
                    String(decoding: nameBytes, as: UTF8.self),
                    String(decoding: valueBytes, as: UTF8.self)
                )
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            session,
            _,
            streamID,
            data,
            length,
            userData in
            guard let data, let client = HTTP2ClientSession.from(userData),
                let stream = client.streams[Int(streamID)], !stream.bodyTooLarge
            else { return 0 }
            if stream.body.count + length > client.configuration.maxResponseBodyBytes {
                stream.bodyTooLarge = true
                stream.body = []
                _ = nghttp2_submit_rst_stream(
                    session,
                    UInt8(NGHTTP2_FLAG_NONE.rawValue),
                    streamID,
                    HTTP2ErrorCode.cancel.rawValue
                )
            } else {
                stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let client = HTTP2ClientSession.from(userData) else { return 0 }
            let type = frame.pointee.hd.type
            let streamID = frame.pointee.hd.stream_id
            if type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                client.receivedGoaway = true
                client.events.append(
                    .goaway(
                        lastStreamID: frame.pointee.goaway.last_stream_id,
                        HTTP2ErrorCode(rawValue: frame.pointee.goaway.error_code)
                    )
                )
                return 0
            }
            guard let stream = client.streams[Int(streamID)] else { return 0 }
            if type == UInt8(NGHTTP2_HEADERS.rawValue), stream.status >= 200 {
                stream.finalHeadersSeen = true
            }
            let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endStream, type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
                !stream.completed, !stream.bodyTooLarge, stream.finalHeadersSeen
            {
                stream.completed = true
                client.events.append(
                    .response(
                        streamID: streamID,
                        HTTPResponse(status: stream.status, headers: stream.headers, body: stream.body)
                    )
                )
                stream.body = []
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, userData in
            guard let frame, let client = HTTP2ClientSession.from(userData),
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
            else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            if let stream = client.streams.removeValue(forKey: Int(streamID)), !stream.completed {
                client.events.append(.reset(streamID: streamID, .refusedStream))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            guard let client = HTTP2ClientSession.from(userData),
                var stream = client.streams.removeValue(forKey: Int(streamID))
            else { return 0 }
            if !stream.completed {
                let code =
                    stream.bodyTooLarge
                    ? HTTP2ErrorCode.cancel
                    : HTTP2ErrorCode(rawValue: errorCode == 0 ? HTTP2ErrorCode.internalError.rawValue : errorCode)
                client.events.append(.reset(streamID: streamID, code))
            }
            client.recycle(&stream)
            return 0
        }
    }
}

/// `:status` read from its bytes: three digits (nghttp2 checks that), else 0.
func statusCode(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    guard bytes.count == 3 else { return 0 }
    var code = 0
    for b in bytes {
        guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return 0 }
        code = code * 10 + Int(b - UInt8(ascii: "0"))
    }
    return code
}

/// Copies the next piece of a request body into nghttp2's frame buffer.
let clientReadBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    guard let buffer, let flags, let client = HTTP2ClientSession.from(userData),
        let stream = client.streams[Int(streamID)]
    else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let count = min(stream.requestBody.count - stream.requestOffset, length)
    if count > 0 {
        stream.requestBody.withUnsafeBufferPointer { src in
            if let base = src.baseAddress { buffer.update(from: base + stream.requestOffset, count: count) }
        }
        stream.requestOffset += count
    }
    if stream.requestOffset >= stream.requestBody.count {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        stream.requestBody = []
        stream.requestOffset = 0
    }
    return count
}
