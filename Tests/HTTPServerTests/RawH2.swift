import Glibc
import HTTP2

/// HTTP/2 frames built by hand, for peers that misbehave in ways a real client session
/// will not: resetting streams in the same write, never opening flow-control windows,
/// trickling a body. HPACK uses only static-table indexes and literals without indexing.
enum RawH2 {
    static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8] = []) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), type, flags]
            + bigEndian(stream & 0x7FFF_FFFF) + payload
    }

    /// The client preface followed by a SETTINGS frame with `settings` (id, value).
    static func preface(settings: [(UInt16, UInt32)] = []) -> [UInt8] {
        HTTP2Preface.bytes + self.settings(settings)
    }

    static func settings(_ entries: [(UInt16, UInt32)]) -> [UInt8] {
        var payload: [UInt8] = []
        for (id, value) in entries { payload += [UInt8(id >> 8), UInt8(id & 0xFF)] + bigEndian(value) }
        return frame(type: 0x4, stream: 0, payload: payload)
    }

    static let initialWindowSize: UInt16 = 0x4

    /// A request's HEADERS frame (END_HEADERS; END_STREAM when `endStream`).
    static func headers(
        stream: UInt32,
        method: String = "GET",
        path: String,
        authority: String = "t",
        fields: [(String, String)] = [],
        endStream: Bool = true
    ) -> [UInt8] {
        var block: [UInt8] = [method == "POST" ? 0x83 : 0x82, 0x86]  // :method, :scheme http
        block += [0x04] + string(path)  // :path, literal
        block += [0x01] + string(authority)  // :authority, literal
        for (name, value) in fields { block += [0x00] + string(name) + string(value) }
        return frame(type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), stream: stream, payload: block)
    }

    static func data(stream: UInt32, _ bytes: [UInt8], endStream: Bool = false) -> [UInt8] {
        frame(type: 0x0, flags: endStream ? 0x1 : 0, stream: stream, payload: bytes)
    }

    static func reset(stream: UInt32, code: UInt32 = 0x8) -> [UInt8] {
        frame(type: 0x3, stream: stream, payload: bigEndian(code))
    }

    static func windowUpdate(stream: UInt32, increment: UInt32) -> [UInt8] {
        frame(type: 0x8, stream: stream, payload: bigEndian(increment))
    }

    /// An HPACK string literal (no Huffman) with its 7-bit-prefix length.
    static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var length = bytes.count
        if length < 127 {
            out.append(UInt8(length))
        } else {
            out.append(127)
            length -= 127
            while length >= 128 {
                out.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            out.append(UInt8(length))
        }
        return out + bytes
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// Splits a byte stream from the server into frames as they complete.
struct RawH2Reader {
    private var buffer: [UInt8] = []

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] {
        buffer += bytes
        var out: [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] = []
        var i = 0
        while i + 9 <= buffer.count {
            let length = Int(buffer[i]) << 16 | Int(buffer[i + 1]) << 8 | Int(buffer[i + 2])
            guard i + 9 + length <= buffer.count else { break }
            let stream =
                (UInt32(buffer[i + 5]) << 24 | UInt32(buffer[i + 6]) << 16
                    | UInt32(buffer[i + 7]) << 8 | UInt32(buffer[i + 8])) & 0x7FFF_FFFF
            out.append((buffer[i + 3], buffer[i + 4], stream, Array(buffer[(i + 9)..<(i + 9 + length)])))
            i += 9 + length
        }
        buffer.removeFirst(i)
        return out
    }
}

/// Waits (up to `limit` seconds) until `condition` holds; whether it did. For a value that must
/// reach a known end (bytes given back after a close), where `settledValue` would take a slow
/// loop's pause for the end.
func becomesTrue(limit: Double = 10, _ condition: () -> Bool) -> Bool {
    var waited = 0.0
    while !condition() {
        if waited >= limit { return false }
        usleep(50_000)
        waited += 0.05
    }
    return true
}

/// Waits until `count()` stops changing for `quiet` seconds (at most `limit` seconds) and
/// returns its last value: how far a server got with input it was given all at once.
func settledValue(quiet: Double = 0.5, limit: Double = 10, _ count: () -> Int) -> Int {
    var last = count()
    var stableFor = 0.0
    var waited = 0.0
    while stableFor < quiet && waited < limit {
        usleep(50_000)
        waited += 0.05
        let now = count()
        if now == last {
            stableFor += 0.05
        } else {
            stableFor = 0
            last = now
        }
    }
    return last
}
