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

    /// The deepest place on `pointer`'s path, and whether it is the pointer's own. Split by
    /// byte, not by character: a `/` followed by a combining mark is one character.
    private func resolve(_ pointer: String, under base: Place) -> (place: Place, exact: Bool) {
        var place = base
        guard !pointer.isEmpty else { return (place, true) }
        guard pointer.utf8.first == UInt8(ascii: "/") else { return (place, false) }
        for token in pointer.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            let entry = entries[Int(place.index)]
            let key = Self.unescaped(token)
            let next: Int32?
            if !entry.items.isEmpty, let i = Int(key), entry.items.indices.contains(i) {
                next = entry.items[i]
            } else {
                next = entry.keys[key]
            }
            guard let next else { return (place, false) }
            place = Place(index: next)
        }
        return (place, true)
    }

    /// One RFC 6901 reference token, unescaped (`~1` is `/`, `~0` is `~`).
    static func unescaped(_ token: Substring.UTF8View.SubSequence) -> String {
        let tilde = UInt8(ascii: "~")
        guard token.contains(tilde) else { return String(decoding: token, as: UTF8.self) }
        var out: [UInt8] = []
        var escaping = false
        for byte in token {
            if escaping {
                out.append(byte == UInt8(ascii: "1") ? UInt8(ascii: "/") : byte == UInt8(ascii: "0") ? tilde : byte)
                escaping = false
            } else if byte == tilde {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        if escaping { out.append(tilde) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `pointer` extended by one reference token, escaped per RFC 6901 (by Unicode scalar).
    public static func pointer(_ base: String, _ token: String) -> String {
        base + "/" + FieldProblem.escape(token)
    }

    public static func pointer(_ base: String, _ index: Int) -> String { base + "/" + String(index) }
}
