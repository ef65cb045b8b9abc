/// Why a YAML source could not be read, and where.
///
/// `description` reads `3:7: found character that cannot start any token`;
/// prefix it with the file name for a `file:line:column` message.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var mark: YAMLMark

    public init(_ message: String, at mark: YAMLMark) {
        self.message = message
        self.mark = mark
    }

    public var line: Int { mark.line }
    public var column: Int { mark.column }

    public var description: String { "\(mark): \(message)" }
}
