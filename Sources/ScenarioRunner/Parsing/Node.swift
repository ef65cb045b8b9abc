import JSON
import YAML

/// A value in a parsed file together with where it came from, so every check can report
/// `file:line:column`, and the file's ``Diagnostics``, where problems that need not stop the
/// parse are recorded.
struct Node {
    let json: JSON
    let pointer: String
    let document: YAMLDocument
    let file: String
    let diagnostics: Diagnostics

    init(document: YAMLDocument, file: String, diagnostics: Diagnostics) {
        self.json = document.json
        self.pointer = ""
        self.document = document
        self.file = file
        self.diagnostics = diagnostics
    }

    private init(json: JSON, pointer: String, of parent: Node) {
        self.json = json
        self.pointer = pointer
        self.document = parent.document
        self.file = parent.file
        self.diagnostics = parent.diagnostics
    }

    var location: SourceLocation { SourceLocation(file: file, mark: document.mark(for: pointer)) }
    var keyLocation: SourceLocation { SourceLocation(file: file, mark: document.keyMark(for: pointer)) }

    func error(_ message: String) -> ScenarioError { ScenarioError(message, at: location) }

    /// The last path token, for messages ("`platform` must be …").
    var name: String {
        guard let slash = pointer.lastIndex(of: "/") else { return "the file" }
        return String(pointer[pointer.index(after: slash)...]).replacingEscapes()
    }

    func child(_ key: String) -> Node? {
        guard let v = json[key] else { return nil }
        return Node(json: v, pointer: YAMLDocument.pointer(pointer, key), of: self)
    }

    func object(_ what: String? = nil) throws(ScenarioError) -> [(String, Node)] {
        guard case .object(let o) = json else {
            throw error("\(what ?? "`\(name)`") must be a mapping of keys to values, not a \(json.typeName)")
        }
        return o.pairs.map { ($0.key, Node(json: $0.value, pointer: YAMLDocument.pointer(pointer, $0.key), of: self)) }
    }

    func array(_ what: String? = nil) throws(ScenarioError) -> [Node] {
        guard case .array(let a) = json else {
            throw error("\(what ?? "`\(name)`") must be a list, not a \(json.typeName)")
        }
        return a.enumerated().map { Node(json: $1, pointer: YAMLDocument.pointer(pointer, $0), of: self) }
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

extension String {
    /// Undoes RFC 6901 escaping of one pointer token.
    func replacingEscapes() -> String {
        guard contains("~") else { return self }
        var out = ""
        var tilde = false
        for ch in self {
            if tilde {
                out.append(ch == "1" ? "/" : "~")
                tilde = false
            } else if ch == "~" {
                tilde = true
            } else {
                out.append(ch)
            }
        }
        return out
    }
}
