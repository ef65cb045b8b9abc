/// The most recent deliveries, at most `capacity` of them: a ring buffer, so a long run or a
/// huge fan-out keeps memory flat. `total` counts every delivery since the last clear. Each
/// delivery gets the next sequence number (1, 2, …, never reused, not even after a clear): the
/// cursor `GET /deliveries` pages by.
struct DeliveryLog: Sendable {
    let capacity: Int
    private var items: [GatewayDelivery] = []
    private var start = 0
    private(set) var total = 0
    private var lastSequence = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ delivery: GatewayDelivery) {
        total += 1
        lastSequence += 1
        if items.count < capacity {
            items.append(delivery)
        } else {
            items[start] = delivery
            start = (start + 1) % capacity
        }
    }

    /// Oldest first.
    var all: [GatewayDelivery] {
        start == 0 ? items : Array(items[start...] + items[..<start])
    }

    var dropped: Int { total - items.count }

    /// One page, oldest first: up to `limit` deliveries numbered above `after` that pass
    /// `include`, with their sequence numbers, and whether more such deliveries follow. Copies
    /// only the page, however large the log.
    func page(
        after: Int,
        limit: Int,
        where include: (GatewayDelivery) -> Bool
    )
        -> (items: [(sequence: Int, delivery: GatewayDelivery)], more: Bool)
    {
        let firstSequence = lastSequence - items.count + 1
        var sequence = max(after + 1, firstSequence)
        var page: [(sequence: Int, delivery: GatewayDelivery)] = []
        page.reserveCapacity(min(limit, 1024))
        while sequence <= lastSequence {
            let delivery = items[(start + sequence - firstSequence) % items.count]
            if include(delivery) {
                if page.count == limit { return (page, true) }
                page.append((sequence, delivery))
            }
            sequence += 1
        }
        return (page, false)
    }

    mutating func clear() {
        items = []
        start = 0
        total = 0
    }
}
