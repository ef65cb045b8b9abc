import HTTP2

/// Tokens a gateway client is working on, by request id. Ids are handed out in increasing
/// order and most finish in about that order, so the work sits in a ``DenseTable``: a lookup
/// is an index, not a hash of the id (a fan-out looks each one up several times).
///
/// ```swift
/// var table = WorkTable<String>()
/// let id = table.insert("token-a")      // 0
/// table[id] = nil                        // finished
/// ```
struct WorkTable<Item> {
    private var table = DenseTable<Item>()

    var count: Int { table.count }

    /// Stores `item` under the next id and returns that id.
    mutating func insert(_ item: Item) -> Int {
        let id = table.endKey
        table[id] = item
        return id
    }

    mutating func reserveCapacity(_ n: Int) { table.reserveCapacity(n) }

    subscript(id: Int) -> Item? {
        get { table[id] }
        set { table[id] = newValue }
    }

    mutating func removeValue(forKey id: Int) -> Item? { table.removeValue(forKey: id) }

    /// Every live id, oldest first.
    var ids: [Int] { table.keys }
}
