/// FNV-1a, 64 bits: a small, stable, dependency-free hash for ETags (not for security).
///
/// ```swift
/// FNV1a64.hex(Array("hello".utf8))   // "a430d84680aabd0b"
/// ```
enum FNV1a64 {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h = offsetBasis
        for b in bytes {
            h ^= UInt64(b)
            h = h &* prime
        }
        return h
    }

    /// The hash as 16 lowercase hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        let s = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
