import JSON

/// Who ran the scenarios: the adapter's `hello` name and version (the in-process Swift host
/// answers as an adapter too), a column of the conformance matrix.
public struct AdapterIdentity: Sendable, Equatable, Hashable {
    public var name: String
    public var version: String

    public init(name: String = "", version: String = "") {
        self.name = name
        self.version = version
    }

    init(hello: JSON) {
        name = hello["name"]?.stringValue ?? ""
        version = hello["version"]?.stringValue ?? ""
    }

    /// "lerix-web-sdk 0.3.0", as the console and JUnit print it.
    public var display: String { [name, version].filter { !$0.isEmpty }.joined(separator: " ") }
}
