import JSON
import POSIX
import ReleaseControl

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
        do {
            return try Posix.readFile(path, limit: maximumBytes)
        } catch  where error.isNotRegularFile {
            throw ConfigError(file: path, message: "not a regular file (a FIFO, device or folder): give a file")
        } catch  where error.call == "open" {
            throw ConfigError(file: path, message: "cannot open: \(error.reason)")
        } catch  where error.errno == SystemCallError.fileTooLarge {
            throw ConfigError(file: path, message: "larger than \(maximumBytes) bytes")
        } catch {
            throw ConfigError(file: path, message: "cannot read: \(error.reason)")
        }
    }
}
