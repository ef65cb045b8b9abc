/// An ordered JSON object. ``JSON/parse(_:)`` refuses a repeated key (as the YAML reader
/// does); built from pairs, a repeated key keeps the last value in the first key's place.
///
/// Pairs are stored in order; objects beyond a handful of keys also keep a hash index from
/// key to position, so building or reading an object of n keys costs O(n) overall rather
/// than the O(n²) of searching the pairs on every insert (a 110k-key body once held an
/// event loop for 80 s). Small objects, the common case, skip the index: a short linear
/// scan is cheaper than hashing.
///
/// ```swift
/// var object = JSONObject([("lifetime", .number(60))])
/// object["etag"] = .string("W/\"1\"")
/// object.keys   // ["lifetime", "etag"]
/// ```
public struct JSONObject: Equatable, Sendable, Sequence {
    public private(set) var pairs: [(key: String, value: JSON)]
    /// Position of each key in `pairs`; nil while the object is small enough to scan.
    private var index: [String: Int]?

    /// Objects with more keys than this get the hash index. A scan passes keys of another
    /// length at a glance, so up to this many keys it beats hashing every key on the way in
    /// (an adapter's `state` answer has 19; building its index cost more than all its reads).
    static let indexThreshold = 24

    public init(_ pairs: [(String, JSON)] = []) {
        self.pairs = []
        self.pairs.reserveCapacity(pairs.count)
        guard pairs.count > Self.indexThreshold else {
            for (k, v) in pairs { self[k] = v }
            return
        }
        // Many keys: one hash per key into an index built as the pairs go in (inserting them one
        // by one through the subscript cost about 1k instructions a key: an adapter's `state`).
        var built: [String: Int] = [:]
        built.reserveCapacity(pairs.count)
        for (k, v) in pairs {
            if let first = built.updateValue(self.pairs.count, forKey: k) {
                built[k] = first  // a repeated key keeps its first place, with the last value
                self.pairs[first].value = v
            } else {
                self.pairs.append((k, v))
            }
        }
        index = self.pairs.count > Self.indexThreshold ? built : nil
    }

    /// An object of pairs whose keys are known to differ (a writer's fixed shape): they are
    /// kept as given, not checked one against another on the way in.
    public init(uniqueKeysWithValues pairs: [(key: String, value: JSON)]) {
        assert(Set(pairs.map(\.key)).count == pairs.count, "JSONObject(uniqueKeysWithValues:) with a repeated key")
        self.pairs = pairs
        if pairs.count > Self.indexThreshold { buildIndex() }
    }

    /// Where `key` sits in `pairs`, if present.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        // Most keys differ in length from the one looked for: the count of a native or small
        // string is at hand, a comparison is not.
        let length = key.utf8.count
        return pairs.firstIndex { $0.key.utf8.count == length && $0.key == key }
    }

    public subscript(key: String) -> JSON? {
        get { position(of: key).map { pairs[$0].value } }
        set {
            if let i = position(of: key) {
                if let newValue { pairs[i].value = newValue } else { remove(at: i) }
            } else if let newValue {
                pairs.append((key, newValue))
                if index != nil {
                    index?[key] = pairs.count - 1
                } else if pairs.count > Self.indexThreshold {
                    buildIndex()
                }
            }
        }
    }

    /// Room for `count` pairs without growing (a parser expects a few).
    public mutating func reserveCapacity(_ count: Int) { pairs.reserveCapacity(count) }

    /// Adds `key` at the end unless the object has it already (then nothing changes): one
    /// look-up, for a parser that refuses repeated keys.
    public mutating func insertIfAbsent(_ key: String, _ value: JSON) -> Bool {
        guard position(of: key) == nil else { return false }
        pairs.append((key, value))
        if index != nil {
            index?[key] = pairs.count - 1
        } else if pairs.count > Self.indexThreshold {
            buildIndex()
        }
        return true
    }

    /// Removing shifts later pairs: O(n), and rare (parsing never removes).
    private mutating func remove(at position: Int) {
        pairs.remove(at: position)
        guard index != nil else { return }
        if pairs.count <= Self.indexThreshold { index = nil } else { buildIndex() }
    }

    private mutating func buildIndex() {
        var built: [String: Int] = [:]
        built.reserveCapacity(pairs.count * 2)
        for (i, pair) in pairs.enumerated() { built[pair.key] = i }
        index = built
    }

    public var keys: [String] { pairs.map(\.key) }
    public var count: Int { pairs.count }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> {
        pairs.makeIterator()
    }

    /// Equal when the same keys hold equal values in the same order (the index is a cache).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
