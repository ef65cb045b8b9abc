import CNghttp2
import HTTP

/// Name/value pairs laid out in one buffer for nghttp2's submit calls, which copy the
/// bytes before returning: one allocation per header block instead of one per field.
struct HeaderBlock {
    private var storage: [UInt8] = []
    /// Where each field sits, and its nghttp2 flags (``neverIndexed`` fields carry NO_INDEX).
    private(set) var spans: [(nameStart: Int, nameCount: Int, valueCount: Int, flags: UInt8)] = []

    /// Every name and value, back to back (``spans`` says where each starts).
    var bytes: [UInt8] { storage }

    init(capacity: Int = 8) {
        storage.reserveCapacity(capacity * 32 + 16)  // names and values of a usual answer without growing
        spans.reserveCapacity(capacity)
    }

    /// Empties the block for the next header section, keeping its buffers (a session frames
    /// every answer in one block: two allocations fewer per answer); one grown past `maxKept`
    /// bytes by a huge section starts over small.
    mutating func reset(maxKept: Int = 16 << 10) {
        if storage.capacity > maxKept {
            self = HeaderBlock()
        } else {
            storage.removeAll(keepingCapacity: true)
            spans.removeAll(keepingCapacity: true)
        }
    }

    /// Appends a field, names lowercased as HTTP/2 requires. Returns false and adds nothing
    /// when the name is not a token or the value holds NUL, CR or LF: the peer would reset
    /// the stream over such a field.
    @discardableResult
    mutating func add(_ name: String, _ value: String) -> Bool {
        // Native strings lend their bytes in place; only others are copied to a contiguous form.
        let added = name.utf8.withContiguousStorageIfAvailable { n in
            value.utf8.withContiguousStorageIfAvailable { v in add(name: n, value: v) }
        }
        if let added, let added { return added }
        var name = name
        var value = value
        return name.withUTF8 { n in value.withUTF8 { v in add(name: n, value: v) } }
    }

    /// ``add(_:_:)`` on bytes: both are checked before anything is stored, in one pass each.
    @discardableResult
    mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !name.isEmpty, Self.isFieldValue(value) else { return false }
        let start = storage.count
        storage.append(contentsOf: name)
        // Checked and lowercased in place, in one pass over the copy; a name that is no token
        // is taken back out.
        let isToken = storage.withUnsafeMutableBufferPointer { buf -> Bool in
            for i in start..<buf.count {
                let b = buf[i]
                guard Self.isTokenByte(b) else { return false }
                if b >= 65 && b <= 90 { buf[i] = b + 32 }
            }
            return true
        }
        guard isToken else {
            storage.removeSubrange(start...)
            return false
        }
        storage.append(contentsOf: value)
        let indexing =
            Self.neverIndexed(storage, from: start, count: name.count)
            ? UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) : UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        spans.append((start, name.count, value.count, indexing))
        return true
    }

    /// Fields whose value is new in nearly every message (an APNs answer's id, the check's
    /// server time): HPACK-indexing them would only push reusable fields out of both peers'
    /// tables, entry by entry, so they are sent as never-indexed literals (as nghttp2 itself
    /// does for `:path`, `content-length` and `etag`). Looked at by length first.
    static func neverIndexed(_ storage: [UInt8], from start: Int, count: Int) -> Bool {
        switch count {
        case 7: return storage.withUnsafeBufferPointer { Self.equals($0, start, "apns-id") }
        case 14: return storage.withUnsafeBufferPointer { Self.equals($0, start, "apns-unique-id") }
        case 17: return storage.withUnsafeBufferPointer { Self.equals($0, start, "lerix-server-time") }
        default: return false
        }
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ literal: StaticString) -> Bool {
        let p = literal.utf8Start
        for i in 0..<literal.utf8CodeUnitCount where bytes[start + i] != p[i] { return false }
        return true
    }

    /// Appends a pseudo-header (":status", ":path", ...), which the token check would refuse.
    mutating func addPseudo(_ name: String, _ value: String) {
        let start = storage.count
        storage.append(contentsOf: name.utf8)
        let nameCount = storage.count - start
        var value = value
        value.withUTF8 { bytes in
            if Self.isFieldValue(bytes) {
                storage.append(contentsOf: bytes)
            } else {
                for b in bytes where b != 0 && b != 10 && b != 13 { storage.append(b) }
            }
        }
        spans.append((start, nameCount, storage.count - start - nameCount, UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    /// `:status` with a three-digit code written as digits (no String made), others as text.
    mutating func addStatus(_ status: Int) {
        guard (100...999).contains(status) else { return addPseudo(":status", String(status)) }
        let start = storage.count
        storage.append(contentsOf: Self.statusName)
        storage.append(UInt8(truncatingIfNeeded: 48 + status / 100))
        storage.append(UInt8(truncatingIfNeeded: 48 + status / 10 % 10))
        storage.append(UInt8(truncatingIfNeeded: 48 + status % 10))
        spans.append((start, Self.statusName.count, 3, UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    private static let statusName: [UInt8] = Array(":status".utf8)

    /// `content-length` with `length` written as digits (no String made for it, as for every
    /// answer a server frames), as HTTP/1.1's serializer writes them.
    mutating func addContentLength(_ length: Int) {
        guard length >= 0 else { return }
        let start = storage.count
        storage.append(contentsOf: "content-length".utf8)
        let digitsStart = storage.count
        HTTPResponseSerializer.appendDecimal(length, to: &storage)
        spans.append((start, 14, storage.count - digitsStart, UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    /// No NUL, LF or CR (what HTTP/2 peers refuse in a value).
    @inline(__always)
    static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes where b <= 13 && (b == 0 || b == 10 || b == 13) { return false }
        return true
    }

    /// RFC 9110 tchar, as two bit masks over ASCII (digits, letters and !#$%&'*+-.^_`|~).
    @inline(__always)
    static func isTokenByte(_ b: UInt8) -> Bool {
        if b < 64 { return (0x03ff_6cfa_0000_0000 as UInt64) >> UInt64(b) & 1 != 0 }
        if b < 128 { return (0x57ff_ffff_c7ff_fffe as UInt64) >> UInt64(b - 64) & 1 != 0 }
        return false
    }

    /// Calls `body` with the nghttp2_nv array; the pointers are valid only inside it. The
    /// array lives on the stack for the call (no allocation per header block).
    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>?, Int) -> R) -> R {
        let spans = self.spans
        return storage.withUnsafeMutableBufferPointer { buf -> R in
            guard let base = buf.baseAddress, !spans.isEmpty else { return body(nil, 0) }
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: spans.count) { nva -> R in
                for (i, span) in spans.enumerated() {
                    nva[i] = nghttp2_nv(  // a C struct: plain stores into the fresh buffer are fine
                        name: base + span.nameStart,
                        value: base + span.nameStart + span.nameCount,
                        namelen: span.nameCount,
                        valuelen: span.valueCount,
                        flags: span.flags
                    )
                }
                return body(UnsafePointer(nva.baseAddress), spans.count)
            }
        }
    }

    /// Header names HTTP/2 forbids (RFC 9113 §8.2.2): connection-specific fields.
    static func isConnectionSpecific(_ name: String) -> Bool {
        switch name.utf8.count {
        case 7: return HTTPHeadersNames.equal("upgrade", name)
        case 10: return HTTPHeadersNames.equal("connection", name) || HTTPHeadersNames.equal("keep-alive", name)
        case 14: return HTTPHeadersNames.equal("http2-settings", name)
        case 16: return HTTPHeadersNames.equal("proxy-connection", name)
        case 17: return HTTPHeadersNames.equal("transfer-encoding", name)
        default: return false
        }
    }
}

enum HTTPHeadersNames {
    /// Whether `other` spells `lower` (lowercase ASCII) in any case; lengths first, which
    /// settles most comparisons without reading a byte.
    static func equal(_ lower: String, _ other: String) -> Bool {
        guard lower.utf8.count == other.utf8.count else { return false }
        var a = lower.utf8.makeIterator()
        var b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                let ly = y >= 65 && y <= 90 ? y + 32 : y
                if x != ly { return false }
            default: return false
            }
        }
    }
}
