/// Reads a credentials file (PEM, a service-account JSON) with an error that names it.
public enum KeyFile {
    public static func read(_ path: String, what: String) throws(TLSError) -> [UInt8] {
        try MemoryBIO.readFile(path, what: what)
    }
}
