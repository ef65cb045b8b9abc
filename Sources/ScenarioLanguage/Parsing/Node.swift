import JSON
import YAML

/// A value in a parsed file together with where it came from, so every check can report
/// `file:line:column`, and the file's ``Diagnostics``, where problems that need not stop the
/// parse are recorded.
struct Node {
    let json: JSON
    /// The node's position, or its nearest ancestor's when it has none (inside an alias's copy).
    let place: YAMLDocument.Place
    /// Whether ``place`` is the node's own.
    let exact: Bool
    /// Its key or index in its parent (nil for the file's root). Not a whole JSON Pointer: a
    /// long key is held once, not once per node below it.
    let token: String?
    let document: YAMLDocument
    let file: String
    let diagnostics: Diagnostics

    init(document: YAMLDocument, file: String, diagnostics: Diagnostics) {
        self.json = document.json
        self.place = document.root
        self.exact = true
        self.token = nil
        self.document = document
        self.file = file
        self.diagnostics = diagnostics
    }

    private init(json: JSON, token: String, place: YAMLDocument.Place?, of parent: Node) {
        self.json = json
        self.place = place ?? parent.place
        self.exact = place != nil && parent.exact
        self.token = token
        self.document = parent.document
        self.file = parent.file
        self.diagnostics = parent.diagnostics
    }

    var location: SourceLocation { SourceLocation(file: file, mark: document.mark(at: place)) }
    var keyLocation: SourceLocation {
        SourceLocation(file: file, mark: exact ? document.keyMark(at: place) : document.mark(at: place))
    }

    func error(_ message: String) -> ScenarioError { ScenarioError(message, at: location) }

    /// The last path token, for messages ("`platform` must be …").
    var name: String { token ?? "the file" }

    func child(_ key: String) -> Node? {
        guard let v = json[key] else { return nil }
        return Node(json: v, token: key, place: exact ? document.child(of: place, key: key) : nil, of: self)
    }

    func object(_ what: String? = nil) throws(ScenarioError) -> [(String, Node)] {
        guard case .object(let o) = json else {
            throw error("\(what ?? "`\(name)`") must be a mapping of keys to values, not a \(json.typeName)")
        }
        return o.pairs.map {
            (
                $0.key,
                Node(
                    json: $0.value,
                    token: $0.key,
                    place: exact ? document.child(of: place, key: $0.key) : nil,
                    of: self
                )
            )
        }
    }

    func array(_ what: String? = nil) throws(ScenarioError) -> [Node] {
        guard case .array(let a) = json else {
            throw error("\(what ?? "`\(name)`") must be a list, not a \(json.typeName)")
        }
        return a.enumerated().map {
            Node(json: $1, token: String($0), place: exact ? document.child(of: place, index: $0) : nil, of: self)
        }
    }

    /// A list, or a single value read as a one-item list.
    func list() -> [Node] {
        if case .array = json, let a = try? array() { return a }
        return [self]
    }

    func string() throws(ScenarioError) -> String {
        guard case .string(let s) = json else {
            if case .number = json {
                throw error(
                    "`\(name)` must be text; write it in quotes (\"\(json.serializedString)\") so YAML keeps it as written"
                )
            }
            throw error("`\(name)` must be text, not a \(json.typeName)")
        }
        return s
    }

    func int() throws(ScenarioError) -> Int {
        guard let i = json.intValue else {
            throw error("`\(name)` must be a whole number, not \(json.serializedString)")
        }
        return i
    }

    func bool() throws(ScenarioError) -> Bool {
        guard case .bool(let b) = json else {
            throw error("`\(name)` must be true or false, not \(json.serializedString)")
        }
        return b
    }

    /// Records every key outside `allowed`, each with the nearest known key; a value that is
    /// not a mapping is an error.
    func checkKeys(_ allowed: [String], what: String) throws(ScenarioError) {
        for (key, node) in try object(what) where !allowed.contains(key) {
            diagnostics.record(
                ScenarioError(
                    Suggestion.message("unknown key '\(key)' in \(what)", for: key, in: allowed),
                    at: node.keyLocation
                )
            )
        }
    }

    /// Runs a check that need not stop the parse: its problem is recorded, nil returned.
    func attempt<T>(_ part: () throws(ScenarioError) -> T) -> T? { diagnostics.attempt(part) }

    /// The value of `key`; when it is missing but a misspelling of it is there (already
    /// reported as an unknown key with this suggestion), that value, so its content is
    /// still checked and the file gets one error, not two.
    func required(_ key: String, in what: String) throws(ScenarioError) -> Node {
        if let c = child(key) { return c }
        if case .object(let o) = json,
            let typo = o.keys.first(where: { $0 != key && KeySuggestion.nearest(to: $0, in: [key]) == key }),
            let c = child(typo)
        {
            return c
        }
        throw error("\(what) needs `\(key)`")
    }
}
