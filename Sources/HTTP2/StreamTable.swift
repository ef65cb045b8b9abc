/// Values by HTTP/2 stream id (positive), for the server side of a connection: its open
/// streams. Open addressing on `id >> 1`: a peer's stream ids are
/// odd and increasing, so consecutive streams take consecutive slots and a look-up is an index
/// and a compare, where a Dictionary hashed every id with SipHash (about 100 instructions, some
/// seven look-ups per request). Unlike ``DenseTable`` it does not grow with the ids handed out
/// after a stream that stays open (an event stream beside many requests): its size follows the
/// most entries ever live at once.
///
/// ```swift
/// var streams = StreamTable<String>()
/// streams[1] = "first"
/// streams[3] = "second"
/// streams[1] = nil          // closed
/// streams.count             // 1
/// ```
///
/// Made for class references (``ServerStream``): an optional struct with fields to retain is
/// copied through its value witnesses, and for HTTP2Handler's requests in flight that cost more
/// than the Dictionary's hashing saved (callgrind).
///
/// Inlinable, so each user's module specializes it (a generic call per look-up would cost more
/// than the hash it replaces).
public struct StreamTable<Value> {
    /// A slot's key: a stream id, or one of these two (stream ids are positive).
    @usableFromInline static var empty: Int32 { 0 }
    @usableFromInline static var removed: Int32 { -1 }

    @usableFromInline var keys: [Int32]
    @usableFromInline var values: [Value?]
    /// Live entries.
    @usableFromInline var live = 0
    /// Slots that are not empty: live entries and removed ones, which probes walk past.
    @usableFromInline var used = 0

    @inlinable public init() {
        keys = Array(repeating: Self.empty, count: 16)
        values = Array(repeating: nil, count: 16)
    }

    @inlinable public var count: Int { live }

    @inlinable public var isEmpty: Bool { live == 0 }

    @inlinable static func home(_ key: Int32, mask: Int) -> Int { Int(truncatingIfNeeded: key >> 1) & mask }

    /// The slot holding `key`, or nil.
    @inlinable func find(_ key: Int32) -> Int? {
        guard key > 0 else { return nil }
        let mask = keys.count - 1
        var i = Self.home(key, mask: mask)
        while true {
            let k = keys[i]
            if k == key { return i }
            if k == Self.empty { return nil }
            i = (i + 1) & mask
        }
    }

    @inlinable public subscript(key: Int32) -> Value? {
        get { find(key).flatMap { values[$0] } }
        set {
            if let i = find(key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys[i] = Self.removed
                    values[i] = nil
                    live -= 1
                }
                return
            }
            guard let newValue, key > 0 else { return }
            // At most three quarters of the slots in use (live or removed): probes stay short
            // and always meet an empty slot.
            if (used + 1) * 4 > keys.count * 3 { rehash() }
            let mask = keys.count - 1
            var i = Self.home(key, mask: mask)
            while keys[i] > 0 { i = (i + 1) & mask }
            if keys[i] == Self.empty { used += 1 }
            keys[i] = key
            values[i] = newValue
            live += 1
        }
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey key: Int32) -> Value? {
        guard let i = find(key) else { return nil }
        keys[i] = Self.removed
        live -= 1
        return values[i].take()  // moved out, not copied and released
    }

    /// Every live value, in no particular order.
    @inlinable public var liveValues: [Value] { values.compactMap { $0 } }

    /// Every live key, in no particular order.
    @inlinable public var liveKeys: [Int32] { keys.filter { $0 > 0 } }

    @inlinable public mutating func removeAll() {
        keys = Array(repeating: Self.empty, count: 16)
        values = Array(repeating: nil, count: 16)
        live = 0
        used = 0
    }

    /// Moves the live entries into a table of more than twice their number (a power of two, never
    /// smaller than it was: a connection's bursts come back, and growing again after each cost
    /// more than the slots), leaving the removed marks behind; the next rehash is at least a
    /// quarter of the table away. Its size follows the most streams ever open at once.
    @inlinable mutating func rehash() {
        var size = keys.count
        while size < live * 2 + 2 { size *= 2 }
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: Self.empty, count: size)
        values = Array(repeating: nil, count: size)
        used = 0
        let mask = size - 1
        for j in oldKeys.indices where oldKeys[j] > 0 {
            var i = Self.home(oldKeys[j], mask: mask)
            while keys[i] != Self.empty { i = (i + 1) & mask }
            keys[i] = oldKeys[j]
            values[i] = oldValues[j]
            used += 1
        }
    }
}

extension StreamTable: Sendable where Value: Sendable {}
