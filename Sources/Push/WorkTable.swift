/// Tokens a gateway client is working on, by request id. Ids are handed out in increasing
/// order and most finish in about that order, so the table is an array from the oldest live id:
/// a lookup is an index, not a hash of the id (a fan-out looks each one up several times).
///
/// ```swift
/// var table = WorkTable<String>()
/// let id = table.insert("token-a")      // 0
/// table[id] = nil                        // finished
/// ```
struct WorkTable<Item> {
    private var slots: [Item?] = []
    /// The id of `slots[0]`.
    private var base = 0
    /// Slots before this index are all empty.
    private var head = 0
    private(set) var count = 0

    /// Stores `item` under the next id and returns that id.
    mutating func insert(_ item: Item) -> Int {
        slots.append(item)
        count += 1
        return base + slots.count - 1
    }

    mutating func reserveCapacity(_ n: Int) { slots.reserveCapacity(slots.count + n) }

    subscript(id: Int) -> Item? {
        get {
            let i = id - base
            return i >= head && i < slots.count ? slots[i] : nil
        }
        set {
            let i = id - base
            guard i >= head, i < slots.count else { return }
            switch (slots[i] == nil, newValue == nil) {
            case (true, false): count += 1
            case (false, true): count -= 1
            default: break
            }
            slots[i] = newValue
            if newValue == nil { compact() }
        }
    }

    mutating func removeValue(forKey id: Int) -> Item? {
        let item = self[id]
        if item != nil { self[id] = nil }
        return item
    }

    /// Every live id, oldest first.
    var ids: [Int] { (head..<slots.count).compactMap { slots[$0] == nil ? nil : base + $0 } }

    /// Skips the empty front; drops it once it is most of the array (amortised O(1)).
    private mutating func compact() {
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
