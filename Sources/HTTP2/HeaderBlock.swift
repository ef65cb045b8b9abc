import CNghttp2

/// Name/value pairs laid out in one buffer for nghttp2's submit calls, which copy the
/// bytes before returning: one allocation per header block instead of one per field.
struct HeaderBlock {
    private var storage: [UInt8] = []
    private(set) var spans: [(nameStart: Int, nameCount: Int, valueCount: Int)] = []

    /// Every name and value, back to back (``spans`` says where each starts).
    var bytes: [UInt8] { storage }

    init(capacity: Int = 8) {
        storage.reserveCapacity(capacity * 24)
        spans.reserveCapacity(capacity)
    }

    /// Appends a field, names lowercased as HTTP/2 requires. Returns false and adds nothing
    /// when the name is not a token or the value holds NUL, CR or LF: the peer would reset
    /// the stream over such a field.
    @discardableResult
    mutating func add(_ name: String, _ value: String) -> Bool {
        let start = storage.count
        var name = name
        var value = value
        let nameOK = name.withUTF8 { bytes -> Bool in
            guard !bytes.isEmpty else { return false }
            for b in bytes where !Self.isTokenByte(b) { return false }
            storage.append(contentsOf: bytes)
            return true
        }
        guard nameOK else { return false }
        let nameCount = storage.count - start
        storage.withUnsafeMutableBufferPointer { buf in
            for i in start ..< start + nameCount where buf[i] >= 65 && buf[i] <= 90 { buf[i] += 32 }
        }
        let valueOK = value.withUTF8 { bytes -> Bool in
            for b in bytes where b == 0 || b == 10 || b == 13 { return false }
            storage.append(contentsOf: bytes)
            return true
        }
        guard valueOK else { storage.removeSubrange(start...); return false }
        spans.append((start, nameCount, storage.count - start - nameCount))
        return true
    }

    /// Appends a pseudo-header (":status", ":path", ...), which the token check would refuse.
    mutating func addPseudo(_ name: String, _ value: String) {
        let start = storage.count
        storage.append(contentsOf: name.utf8)
        let nameCount = storage.count - start
        var value = value
        value.withUTF8 { bytes in
            if bytes.allSatisfy({ $0 != 0 && $0 != 10 && $0 != 13 }) {
                storage.append(contentsOf: bytes)
            } else {
                for b in bytes where b != 0 && b != 10 && b != 13 { storage.append(b) }
            }
        }
        spans.append((start, nameCount, storage.count - start - nameCount))
    }

    /// RFC 9110 tchar.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 48...57, 65...90, 97...122: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// Calls `body` with the nghttp2_nv array; the pointers are valid only inside it.
    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>?, Int) -> R) -> R {
        let spans = self.spans
        return storage.withUnsafeMutableBufferPointer { buf -> R in
            guard let base = buf.baseAddress else { return body(nil, 0) }
            var nva: [nghttp2_nv] = []
            nva.reserveCapacity(spans.count)
            for span in spans {
                nva.append(nghttp2_nv(
                    name: base + span.nameStart,
                    value: base + span.nameStart + span.nameCount,
                    namelen: span.nameCount,
                    valuelen: span.valueCount,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return nva.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
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
    static func equal(_ lower: String, _ other: String) -> Bool {
        var a = lower.utf8.makeIterator(), b = other.utf8.makeIterator()
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
