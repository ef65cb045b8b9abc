import CZlib

/// gzip through zlib, whole buffers at a time: the bodies this server sends are small and
/// already in memory, so streaming would only add state.
///
/// ```swift
/// let packed = try Gzip.compress(Array(json.utf8))
/// let again = try Gzip.decompress(packed)      // == Array(json.utf8)
/// ```
public enum Gzip {
    /// Why zlib refused, in words a log reader can act on.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The gzip member (RFC 1952) for `input`. `level` is zlib's 0...9 (6 balances speed and size).
    public static func compress(_ input: [UInt8], level: Int32 = 6) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        let initResult = deflateInit2_(
            &stream,
            level,
            Z_DEFLATED,
            31,
            8,
            Z_DEFAULT_STRATEGY,
            zlibVersion(),
            Int32(MemoryLayout<z_stream>.size)
        )
        guard initResult == Z_OK else { throw Failure(description: "zlib deflateInit2 failed (\(initResult))") }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var produced = 0
        let result: Int32 = input.withUnsafeBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                let rv = deflate(&stream, Z_FINISH)
                produced = outBuf.count - Int(stream.avail_out)
                return rv
            }
        }
        guard result == Z_STREAM_END else { throw Failure(description: "zlib deflate did not finish (\(result))") }
        output.removeSubrange(produced...)
        return output
    }

    /// The bytes inside a gzip member; throws on corrupt input or above `maxBytes`
    /// (a guard against decompression bombs).
    public static func decompress(_ input: [UInt8], maxBytes: Int = 64 << 20) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        let initResult = inflateInit2_(&stream, 31, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard initResult == Z_OK else { throw Failure(description: "zlib inflateInit2 failed (\(initResult))") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var result: Int32 = Z_OK
        input.withUnsafeBufferPointer { inBuf in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = uInt(inBuf.count)
            while result == Z_OK {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = uInt(outBuf.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    return outBuf.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > maxBytes {
                    result = Z_MEM_ERROR
                    return
                }
                if result == Z_BUF_ERROR && produced > 0 { result = Z_OK }  // room ran out: go on
            }
        }
        if output.count > maxBytes { throw Failure(description: "gzip body inflates beyond \(maxBytes) bytes") }
        guard result == Z_STREAM_END else {
            throw Failure(
                description: result == Z_BUF_ERROR ? "gzip body is truncated" : "gzip body is corrupt (zlib \(result))"
            )
        }
        return output
    }
}
