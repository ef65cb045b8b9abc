import COpenSSL

/// Reads PEM text and files through OpenSSL BIOs, so every parser is OpenSSL's own.
enum MemoryBIO {
    /// A read-only BIO over `text` for the duration of `body`.
    static func reading<T>(_ text: [UInt8], _ body: (OpaquePointer) throws(TLSError) -> T) throws(TLSError) -> T {
        guard let bio = text.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw TLSError.openSSL("out of memory")
        }
        defer { BIO_free(bio) }
        // BIO_new_mem_buf does not copy: `text` must outlive the BIO, which `defer` ensures here
        // only because the array is not mutated meanwhile.
        return try body(bio)
    }

    /// What `write` put into a fresh memory BIO, as bytes.
    static func written(_ write: (OpaquePointer) -> Int32) throws(TLSError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL("out of memory") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw TLSError.openSSL("could not write PEM") }
        return drain(bio)
    }

    /// Everything a memory BIO holds, emptied.
    static func drain(_ bio: OpaquePointer) -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(bio))
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let n = out.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        return n > 0 ? Array(out[0..<Int(n)]) : []
    }

    /// The bytes of a file, or an error naming it (missing, unreadable, empty).
    static func readFile(_ path: String, what: String) throws(TLSError) -> [UInt8] {
        guard let bio = BIO_new_file(path, "rb") else {
            _ = TLSError.drainErrorQueue()
            throw TLSError("\(what) '\(path)' cannot be opened (missing or unreadable)")
        }
        defer { BIO_free(bio) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32($0.count)) }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<Int(n)])
            if out.count > 4 << 20 { throw TLSError("\(what) '\(path)' is larger than 4 MiB: not a PEM file") }
        }
        _ = TLSError.drainErrorQueue()
        if out.isEmpty { throw TLSError("\(what) '\(path)' is empty") }
        return out
    }
}
