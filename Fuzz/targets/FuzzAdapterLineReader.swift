// libFuzzer target: arbitrary bytes as an adapter's stdout, fed to AdapterLineReader in chunks
// of fuzzer-chosen sizes, with a small line limit. The lines it yields must be exactly the
// newline-separated pieces of the input (whatever the chunking), a piece over the limit must
// be refused, and every line goes on as the protocol reads it: JSON, then a request object.
import AdapterProtocol
import Glibc
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAdapterLineReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The first byte picks the chunk size and the limit, the rest is the stream.
    let chunk = Int(bytes[0] & 0x3F) + 1
    let limit = Int(bytes[0] >> 6) * 40 + 8
    let stream = Array(bytes.dropFirst())
    var reader = AdapterLineReader(maximumLine: limit)
    var got: [[UInt8]] = []
    var refused = false
    var offset = 0
    feeding: while offset < stream.count {
        let end = min(stream.count, offset + chunk)
        reader.append(stream[offset..<end])
        offset = end
        while true {
            do {
                guard let line = try reader.nextLine() else { break }
                got.append(line)
            } catch {
                guard error.limit == limit else { fail("refused with the wrong limit") }
                refused = true
                break feeding
            }
        }
        guard reader.pendingCount <= limit + chunk else { fail("holds \(reader.pendingCount) bytes past the limit") }
    }
    // What a reader that never loses a byte would have yielded.
    var expected = stream.split(separator: 10, omittingEmptySubsequences: false).map { Array($0) }
    let unfinished = expected.removeLast()
    if let tooLong = expected.firstIndex(where: { $0.count > limit }) {
        guard refused, got == Array(expected[..<tooLong]) else {
            fail("a line over the limit was not refused in order")
        }
    } else if unfinished.count > limit {
        guard refused, got == expected else { fail("an unfinished line over the limit was not refused") }
    } else {
        guard !refused, got == expected else { fail("lines differ from the input's") }
        guard Array(reader.pending) == unfinished else { fail("the unfinished line was not kept") }
    }
    for line in got {
        guard let value = try? JSON.parse(line), let object = value.objectValue else { continue }
        _ = try? AdapterRequest(decoding: object)
    }
    return 0
}

private func fail(_ why: String) -> Never {
    fputs("adapter-line-reader: \(why)\n", stderr)
    abort()
}
