/// Why a `--config` file (or a stored state) cannot seed the mock: the file, the field as a
/// JSON pointer, where it is in the file when known, and why. The CLI prints `description`
/// and exits non-zero.
///
/// ```swift
/// do { _ = try ConfigFile.load(path: "seed.json") } catch { print(error) }
/// // seed.json: /projects/0/rules/1/below: "2.x" is not a version
/// ```
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Item: Sendable, Equatable {
        public var pointer: String
        public var message: String
        /// 1-based line and column in the file, when the format tells us.
        public var line: Int?
        public var column: Int?

        public init(pointer: String, message: String, line: Int? = nil, column: Int? = nil) {
            self.pointer = pointer
            self.message = message
            self.line = line
            self.column = column
        }
    }

    public var file: String
    public var items: [Item]

    public init(file: String, items: [Item]) {
        self.file = file
        self.items = items
    }

    public init(file: String, message: String, line: Int? = nil, column: Int? = nil) {
        self.init(file: file, items: [Item(pointer: "", message: message, line: line, column: column)])
    }

    public var description: String {
        items.map { item in
            var text = file
            if let line = item.line {
                text += ":\(line)"
                if let column = item.column { text += ":\(column)" }
            }
            text += ": "
            if !item.pointer.isEmpty { text += item.pointer + ": " }
            return text + item.message
        }.joined(separator: "\n")
    }
}
