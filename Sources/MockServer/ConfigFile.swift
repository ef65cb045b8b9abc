import JSON
import ReleaseControl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a `--config` seed file: JSON, or YAML when the name ends in `.yaml`/`.yml`.
///
/// ```swift
/// let seed = try ConfigFile.load(path: "Scenarios/seed.json")   // throws ConfigError
/// let server = try MockServer(options: MockServerOptions(seed: seed))
/// ```
public enum ConfigFile {
    /// Larger files are refused rather than read whole (100,000 tokens fit easily).
    public static let maximumBytes = 256 * 1024 * 1024

    public static func load(path: String) throws(ConfigError) -> StateSnapshot {
        let bytes = try readFile(path: path)
        return try parse(bytes, file: path)
    }

    /// Parses the bytes of a seed file named `file` (the name picks the format and appears in errors).
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> StateSnapshot {
        let lower = file.lowercased()
        if lower.hasSuffix(".yaml") || lower.hasSuffix(".yml") {
            return try parseYAML(bytes, file: file)
        }
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw ConfigError(file: file, message: "not JSON: \(error.message)", line: error.line, column: error.column)
        }
        do {
            return try StateSnapshot(json: json)
        } catch {
            throw ConfigError(
                file: file,
                items: error.problems.map { ConfigError.Item(pointer: $0.pointer, message: $0.message) }
            )
        }
    }

    static func readFile(path: String) throws(ConfigError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw ConfigError(file: path, message: "cannot open: \(errnoText())") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ConfigError(file: path, message: "cannot open: \(errnoText())") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError(file: path, message: "not a regular file (a FIFO, device or folder): give a file")
        }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConfigError(file: path, message: "cannot read: \(errnoText())")
            }
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
            if out.count > maximumBytes { throw ConfigError(file: path, message: "larger than \(maximumBytes) bytes") }
        }
        return out
    }

    static func errnoText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}
