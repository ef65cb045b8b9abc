/// Header fields in arrival order; names compare case-insensitively (RFC 9110 §5.1).
///
/// ```swift
/// var headers = HTTPHeaders([("Content-Type", "application/json")])
/// headers["content-type"]          // "application/json"
/// headers.add("Vary", "Accept-Encoding")
/// ```
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public internal(set) var fields: [HTTPField]

    /// No fields: every request and response starts here, so it allocates and maps nothing.
    public init() {
        self.fields = []
    }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { HTTPField($0.0, $0.1) }
    }

    public init(fields: [HTTPField]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        firstIndex(of: name).map { fields[$0].value }
    }

    /// Index in ``fields`` of the first field named `name`.
    public func firstIndex(of name: String) -> Int? {
        // In place, the length asked for read once: most fields differ in length from it, and
        // each one read through the array was copied out (two retains and two releases).
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { buffer in
            for i in 0..<buffer.count where buffer[i].name.utf8.count == length {
                if Self.sameLengthNamesEqual(buffer[i].name, name) { return i }
            }
            return nil
        }
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPField(name, value))
    }

    /// Room for `count` fields, so a header filled field by field grows its storage once
    /// (an HTTP/2 request or a push answer), not at every doubling.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Replaces every field named `name` with one field (in the first one's place, if any).
    public mutating func set(_ name: String, _ value: String) {
        guard let first = firstIndex(of: name) else {
            fields.append(HTTPField(name, value))
            return
        }
        fields[first] = HTTPField(name, value)
        let later = first + 1
        if fields[later...].contains(where: { Self.namesEqual($0.name, name) }) {
            let kept = fields[later...].filter { !Self.namesEqual($0.name, name) }
            fields.replaceSubrange(later..., with: kept)
        }
    }

    public mutating func remove(_ name: String) {
        // Only a header that holds the name is written to (no copy of a shared one otherwise).
        guard let first = firstIndex(of: name) else { return }
        fields.remove(at: first)
        if fields[first...].contains(where: { Self.namesEqual($0.name, name) }) {
            fields.removeAll { Self.namesEqual($0.name, name) }
        }
    }

    /// Removes every field whose name satisfies `predicate`, in one pass over the names; a
    /// header without such a field is not written to.
    public mutating func removeAll(named predicate: (String) -> Bool) {
        // Looked over in place: `contains(where:)` copied each field out (retains and releases).
        let holdsOne = fields.withUnsafeBufferPointer { buffer in
            for i in 0..<buffer.count where predicate(buffer[i].name) { return true }
            return false
        }
        guard holdsOne else { return }
        fields.removeAll { predicate($0.name) }
    }

    public func contains(_ name: String) -> Bool { firstIndex(of: name) != nil }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[HTTPField]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesEqual($0.name, $1.name) && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison without allocating.
    ///
    /// Lengths first (constant time for native strings), then bytes where both are contiguous
    /// (every native or small string): most lookups end at the length, which is inlined into
    /// the caller (a call per field was most of a lookup's cost).
    @inlinable
    public static func namesEqual(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && sameLengthNamesEqual(a, b)
    }

    /// ``namesEqual(_:_:)`` for two names of one length.
    @usableFromInline
    static func sameLengthNamesEqual(_ a: String, _ b: String) -> Bool {
        // Names spelled alike first: two small strings (names up to 15 bytes) compare as two
        // words, where folding copies both out and walks their bytes.
        if a == b { return true }
        let ua = a.utf8
        let ub = b.utf8
        let contiguous = ua.withContiguousStorageIfAvailable { pa in
            ub.withContiguousStorageIfAvailable { pb in bytesEqualFolded(pa, pb) }
        }
        if let contiguous, let result = contiguous { return result }
        var ia = ua.makeIterator()
        var ib = ub.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x == y { continue }
                let lx = x >= 65 && x <= 90 ? x + 32 : x
                let ly = y >= 65 && y <= 90 ? y + 32 : y
                if lx != ly { return false }
            default: return false
            }
        }
    }

    /// Equal-length buffers, ASCII letters folded to lower case.
    @inline(__always)
    static func bytesEqualFolded(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in 0..<a.count {
            let x = a[i]
            let y = b[i]
            if x == y { continue }
            let lx = x >= 65 && x <= 90 ? x | 0x20 : x
            let ly = y >= 65 && y <= 90 ? y | 0x20 : y
            if lx != ly { return false }
        }
        return true
    }
}
