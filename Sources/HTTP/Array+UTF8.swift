extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `text` with one copy when the string is contiguous (every
    /// native or small string): the generic `append(contentsOf: text.utf8)` walks the view
    /// byte by byte, which was most of a response head's and a log line's cost.
    @inlinable
    public mutating func appendUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            append(contentsOf: bytes)
        }
        if copied == nil { append(contentsOf: text.utf8) }
    }
}
