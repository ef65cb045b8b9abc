import JSON

/// A parsed YAML document: its value as ``JSON`` plus where every node came from.
///
/// Positions sit in a tree beside the value, one entry per node, each child found from its
/// parent by key or index: a long key is held once, however many nodes sit below it (a
/// position keyed by the whole JSON Pointer held a 256 KiB key once per item of a 20,000-item
/// list under it). A position can be asked by JSON Pointer (RFC 6901: `""` is the root,
/// `/rules/0/below` a nested value) or walked with ``Place``s. Nodes copied by an alias have no
/// positions of their own; they answer their nearest marked ancestor's, so every pointer gets
/// one.
///
/// ```swift
/// let doc = try YAML.parse(Array("devices:\n  - platform: ios\n".utf8))
/// doc.json["devices"]?.arrayValue?.count     // 1
/// doc.mark(for: "/devices/0/platform")       // 2:15 (the value)
/// doc.keyMark(for: "/devices/0/platform")    // 2:5  (the key)
/// ```
public struct YAMLDocument: Sendable {
    public var json: JSON

    /// A node with a position of its own, found from ``root`` by ``child(of:key:)`` and
    /// ``child(of:index:)``.
    public struct Place: Hashable, Sendable {
        let index: Int32
    }

    struct Entry: Sendable {
        var mark: YAMLMark
        /// Where the key naming this value starts (mapping values only).
        var keyMark: YAMLMark?
        var keys: [String: Int32] = [:]
        var items: [Int32] = []
    }

    var entries: [Entry]

    public init(json: JSON) {
        self.json = json
        entries = [Entry(mark: YAMLMark(line: 1, column: 1))]
    }

    init(json: JSON, entries: [Entry]) {
        self.json = json
        self.entries = entries.isEmpty ? [Entry(mark: YAMLMark(line: 1, column: 1))] : entries
    }

    /// The document's value.
    public var root: Place { Place(index: 0) }

    /// The value under `key` of the mapping at `place`, if it has a position of its own.
    public func child(of place: Place, key: String) -> Place? {
        entries[Int(place.index)].keys[key].map(Place.init(index:))
    }

    /// Item `index` of the list at `place`, if it has a position of its own.
    public func child(of place: Place, index: Int) -> Place? {
        let items = entries[Int(place.index)].items
        return items.indices.contains(index) ? Place(index: items[index]) : nil
    }

    /// Where the value at `place` starts.
    public func mark(at place: Place) -> YAMLMark { entries[Int(place.index)].mark }

    /// Where the key naming the value at `place` starts (the value's mark for items and the root).
    public func keyMark(at place: Place) -> YAMLMark {
        let entry = entries[Int(place.index)]
        return entry.keyMark ?? entry.mark
    }

    /// Where the value at `pointer` (below `base`) starts, or where its nearest marked
    /// ancestor starts.
    public func mark(for pointer: String, under base: Place? = nil) -> YAMLMark {
        mark(at: resolve(pointer, under: base ?? root).place)
    }

    /// Where the key naming the value at `pointer` (below `base`) starts: the value's mark for
    /// items and the root, the nearest marked ancestor's when it has none of its own.
    public func keyMark(for pointer: String, under base: Place? = nil) -> YAMLMark {
        let found = resolve(pointer, under: base ?? root)
        return found.exact ? keyMark(at: found.place) : mark(at: found.place)
    }

    /// The deepest place on `pointer`'s path, and whether it is the pointer's own.
    private func resolve(_ pointer: String, under base: Place) -> (place: Place, exact: Bool) {
        var place = base
        guard !pointer.isEmpty else { return (place, true) }
        var tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst()[...]
        guard pointer.hasPrefix("/") else { return (place, false) }
        while let token = tokens.popFirst() {
            let entry = entries[Int(place.index)]
            let next: Int32?
            if !entry.items.isEmpty, let i = Int(token), entry.items.indices.contains(i) {
                next = entry.items[i]
            } else {
                next = entry.keys[Self.unescaped(token)]
            }
            guard let next else { return (place, false) }
            place = Place(index: next)
        }
        return (place, true)
    }

    /// One RFC 6901 reference token, unescaped (`~1` is `/`, `~0` is `~`).
    static func unescaped(_ token: Substring) -> String {
        guard token.contains("~") else { return String(token) }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// `pointer` extended by one reference token, escaped per RFC 6901.
    public static func pointer(_ base: String, _ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return base + "/" + token }
        var escaped = ""
        for ch in token {
            switch ch {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(ch)
            }
        }
        return base + "/" + escaped
    }

    public static func pointer(_ base: String, _ index: Int) -> String { base + "/" + String(index) }
}

extension Substring {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var out = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        self[...].replacingOccurrences(of: target, with: replacement)
    }
}
