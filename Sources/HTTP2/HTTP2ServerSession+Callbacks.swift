import CNghttp2
import HTTP

// nghttp2 calls back through C function pointers: non-capturing closures that find their
// session through `user_data`.

extension HTTP2ServerSession {
    static func from(_ userData: UnsafeMutableRawPointer?) -> HTTP2ServerSession? {
        guard let userData else { return nil }
        return Unmanaged<HTTP2ServerSession>.fromOpaque(userData).takeUnretainedValue()
    }

    static func installServerCallbacks(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let session = HTTP2ServerSession.from(userData) else { return 0 }
            if frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            {
                let stream = ServerStream()
                stream.startedAt = session.now
                session.streams[frame.pointee.hd.stream_id] = stream
                session.decodingStream = (frame.pointee.hd.stream_id, stream)
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
            guard let frame, let name, let value, let session = HTTP2ServerSession.from(userData),
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST,
                let stream = session.stream(decoding: frame.pointee.hd.stream_id)
            else { return 0 }
            // Past a limit nothing more is stored (the answer is 414 or 431 either way), but
            // the block is still decoded to its end: HPACK state must stay in step.
            let limits = session.configuration.limits
            let isPseudo = nameLength > 1 && name[0] == UInt8(ascii: ":")
            let isPath = isPseudo && nameLength == 5 && name[1] == UInt8(ascii: "p")
            let isAuthority = isPseudo && nameLength == 10 && name[1] == UInt8(ascii: "a")
            if isPath {
                if valueLength > limits.maxTargetBytes { stream.targetTooLong = true }
            } else if !isPseudo || isAuthority {
                // As its HTTP/1.1 field line would count; `:authority` is the Host field.
                stream.headerBytes += HTTPLimits.fieldLineBytes(
                    nameBytes: isAuthority ? 4 : nameLength,
                    valueBytes: valueLength
                )
                if stream.headerBytes > limits.maxHeaderBytes { stream.headersTooLarge = true }
            }
            if stream.targetTooLong || stream.headersTooLarge {
                stream.headers = HTTPHeaders()
                return 0
            }
            let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
            let valueText = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            if isPseudo {
                switch nameBytes.count {
                case 5 where isPath: stream.path = valueText  // :path
                case 7 where name[1] == UInt8(ascii: "m"): stream.method = valueText  // :method
                case 10 where isAuthority: stream.authority = valueText  // :authority
                default: break  // :scheme, :protocol
                }
            } else {
                // Room for a usual request's fields and the Host made from :authority at once.
                if stream.headers.count == 0 { stream.headers.reserveCapacity(8) }
                stream.headers.add(HTTPRequestParser.fieldName(UnsafeRawBufferPointer(nameBytes)), valueText)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            guard let data, let session = HTTP2ServerSession.from(userData),
                let stream = session.streams[streamID], !stream.bodyTooLarge, !stream.bodyRefused
            else { return 0 }
            if stream.body.count + length > session.configuration.limits.maxBodyBytes {
                stream.bodyTooLarge = true
                stream.body = []
                session.release(stream)
            } else if !session.reserveBody(length, on: stream) {
                session.refuseBody(on: streamID, stream)
            } else {
                stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame, let session = HTTP2ServerSession.from(userData) else { return 0 }
            let type = frame.pointee.hd.type
            let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endStream, type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) {
                session.requestEnded(on: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, userData in
            guard let session = HTTP2ServerSession.from(userData) else { return 0 }
            if session.decodingStream?.id == streamID { session.decodingStream = nil }
            guard let stream = session.streams.removeValue(forKey: streamID) else { return 0 }
            session.release(stream)
            session.queuedResponseBytes -= stream.responseBody.count - stream.responseOffset
            return 0
        }
    }

    /// The open stream `streamID` whose header block is arriving: the one begun last, else
    /// looked up (a trailer section on an older stream).
    func stream(decoding streamID: Int32) -> ServerStream? {
        if let decoding = decodingStream, decoding.id == streamID { return decoding.stream }
        return streams[streamID]
    }

    /// The client finished sending on `streamID`: deliver the request, or the limit it
    /// broke (in HTTP/1.1's order: target, then header section, then body).
    func requestEnded(on streamID: Int32) {
        guard let stream = stream(decoding: streamID), !stream.delivered else { return }
        stream.delivered = true
        let limits = configuration.limits
        let rejection =
            stream.targetTooLong
            ? limits.targetTooLong
            : stream.headersTooLarge
                ? limits.headerSectionTooLarge
                : stream.bodyTooLarge ? limits.bodyTooLarge : nil
        if let rejection {
            stream.body = []
            events.append(.rejected(streamID: streamID, rejection))
            return
        }
        // Taken out of the stream first, so adding Host writes the one copy in place.
        var headers = stream.headers
        stream.headers = HTTPHeaders()
        if !stream.authority.isEmpty && !headers.contains("Host") {
            headers.add("Host", stream.authority)
        }
        let target = stream.path.isEmpty ? stream.authority : stream.path
        let request = HTTPRequest(
            method: stream.method,
            target: target,
            version: .http2,
            headers: headers,
            body: stream.body
        )
        stream.body = []
        events.append(.request(streamID: streamID, request))
    }
}

/// Copies the next piece of a stream's response body into nghttp2's frame buffer.
let serverReadBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    guard let buffer, let flags, let session = HTTP2ServerSession.from(userData),
        let stream = session.streams[streamID]
    else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let remaining = stream.responseBody.count - stream.responseOffset
    if remaining == 0 && stream.streaming && !stream.streamEnded {
        return Int(NGHTTP2_ERR_DEFERRED.rawValue)
    }
    let count = min(remaining, length)
    if count > 0 {
        stream.responseBody.withUnsafeBufferPointer { src in
            if let base = src.baseAddress {
                buffer.update(from: base + stream.responseOffset, count: count)
            }
        }
        stream.responseOffset += count
        session.queuedResponseBytes -= count
    }
    if stream.responseOffset >= stream.responseBody.count && (!stream.streaming || stream.streamEnded) {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        stream.responseBody = []
        stream.responseOffset = 0
    }
    return count
}
