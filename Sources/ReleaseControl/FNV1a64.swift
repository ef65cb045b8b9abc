/// FNV-1a, 64 bits: a small, stable, dependency-free hash for ETags (not for security).
///
/// ```swift
/// FNV1a64.hex(Array("hello".utf8))   // "a430d84680aabd0b"
/// ```
public enum FNV1a64 {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// `bytes` hashed on from `hash` (the offset basis to start), so several pieces can be
    /// hashed as one without joining them first.
    @inlinable
    public static func hash(_ bytes: some Sequence<UInt8>, continuing hash: UInt64 = offsetBasis) -> UInt64 {
        // A native string's UTF-8 and arrays are one buffer: walked by pointer, not through the
        // sequence's iterator (a String.UTF8View's index steps cost several times the hash itself).
        bytes.withContiguousStorageIfAvailable { $0.reduce(hash, step) } ?? bytes.reduce(hash, step)
    }

    /// One byte into the hash.
    @inlinable
    static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* prime
    }

    /// The hash as 16 lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        let s = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
