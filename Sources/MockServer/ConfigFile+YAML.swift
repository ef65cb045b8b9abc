import JSON

extension ConfigFile {
    static func parseYAML(_ bytes: [UInt8], file: String) throws(ConfigError) -> StateSnapshot {
        throw ConfigError(file: file, message: "YAML configs are not supported by this build yet; use JSON")
    }
}
