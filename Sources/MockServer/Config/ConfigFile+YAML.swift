import JSON
import YAML

extension ConfigFile {
    /// YAML seeds read through libyaml into the same JSON shape; errors carry the line and column.
    static func parseYAML(_ bytes: [UInt8], file: String) throws(ConfigError) -> StateSnapshot {
        let document: YAMLDocument
        do {
            document = try YAML.parse(bytes)
        } catch {
            throw ConfigError(file: file, message: "not YAML: \(error.message)", line: error.line, column: error.column)
        }
        do {
            return try StateSnapshot(json: document.json)
        } catch {
            throw ConfigError(
                file: file,
                items: error.problems.map { problem in
                    let mark =
                        problem.message.hasPrefix("unknown field")
                        ? document.keyMark(for: problem.pointer)
                        : document.mark(for: problem.pointer)
                    return ConfigError.Item(
                        pointer: problem.pointer,
                        message: problem.message,
                        line: mark.line,
                        column: mark.column
                    )
                }
            )
        }
    }
}
