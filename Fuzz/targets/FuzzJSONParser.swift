// libFuzzer target: arbitrary bytes into the JSON parser. Whatever parses must serialize to
// text that parses back to the same value (compact and indented), and every key of every
// object must be found by lookup (the hash index and the ordered pairs agree).
import Glibc
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSON.parse(bytes) else { return 0 }
    check(value)
    for text in [value.serialized(), value.prettySerialized()] {
        guard let again = try? JSON.parse(text), again == value else {
            fputs("round trip changed the value: \(String(decoding: text, as: UTF8.self))\n", stderr)
            abort()
        }
    }
    return 0
}

private func check(_ value: JSON) {
    switch value {
    case .array(let items): items.forEach(check)
    case .object(let object):
        var seen = Set<String>()
        for (key, child) in object {
            guard seen.insert(key).inserted else {
                fputs("duplicate key \(key) kept\n", stderr)
                abort()
            }
            guard object[key] == child else {
                fputs("lookup of \(key) disagrees with the pairs\n", stderr)
                abort()
            }
            check(child)
        }
    default: break
    }
}
