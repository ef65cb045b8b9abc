/// Values by integer keys that are handed out in increasing order and mostly removed in about
/// that order: client stream ids (1, 3, 5, …), request ids. The table is an array from the
/// oldest live key, so a lookup is an index, not a hash of the key (a push fan-out looks each
/// stream up several times).
///
/// ```swift
/// var streams = DenseTable<String>()
/// streams[1] = "first"
/// streams[3] = "second"
/// streams[1] = nil          // answered
/// streams.count             // 1
/// ```
///
/// Inlinable, so each user's module specializes it (a generic call per lookup would cost more
/// than the hash it replaces).
public struct DenseTable<Value> {
    @usableFromInline var slots: [Value?] = []
    /// The key of `slots[0]`.
    @usableFromInline var base = 0
    /// Slots before this index are all empty.
    @usableFromInline var head = 0
    /// Live values.
    @usableFromInline var live = 0

    @inlinable public var count: Int { live }

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { count == 0 }

    /// The key after the last slot: a new key at or above it appends.
    @inlinable public var endKey: Int { base + slots.count }

    @inlinable public mutating func reserveCapacity(_ n: Int) { slots.reserveCapacity(slots.count + n) }

    @inlinable public subscript(key: Int) -> Value? {
        get {
            let i = key - base
            return i >= head && i < slots.count ? slots[i] : nil
        }
        set {
            var i = key - base
            if i >= slots.count {
                guard newValue != nil else { return }
                if slots.count == head {
                    // Everything is empty: start the array at this key.
                    slots.removeAll(keepingCapacity: true)
                    base = key
                    head = 0
                    i = 0
                } else {
                    while slots.count < i { slots.append(nil) }
                }
                slots.append(newValue)
                live += 1
                return
            }
            if i < head {
                guard newValue != nil else { return }
                // A key below the live front: rare (keys come in order), so the array grows at the front.
                if i < 0 {
                    slots.insert(contentsOf: repeatElement(nil, count: -i), at: 0)
                    base = key
                    head -= i
                    i = 0
                }
                head = i
            }
            switch (slots[i] == nil, newValue == nil) {
            case (true, false): live += 1
            case (false, true): live -= 1
            default: break
            }
            slots[i] = newValue
            if newValue == nil && i == head { compact() }
        }
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey key: Int) -> Value? {
        let value = self[key]
        if value != nil { self[key] = nil }
        return value
    }

    /// Every live key, oldest first.
    @inlinable public var keys: [Int] { (head..<slots.count).compactMap { slots[$0] == nil ? nil : base + $0 } }

    /// Every live value, oldest key first.
    @inlinable public var values: [Value] { slots[head...].compactMap { $0 } }

    @inlinable public mutating func removeAll() {
        slots = []
        base = 0
        head = 0
        live = 0
    }

    /// Skips the empty front; drops it once it is most of the array (amortised O(1)).
    @inlinable mutating func compact() {
        while head < slots.count, slots[head] == nil { head += 1 }
        if head == slots.count {
            base += slots.count
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= slots.count {
            slots.removeFirst(head)
            base += head
            head = 0
        }
    }
}

extension DenseTable: Sendable where Value: Sendable {}
