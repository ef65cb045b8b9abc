/// The most recent deliveries, at most `capacity` of them: a ring buffer, so a long run or a
/// huge fan-out keeps memory flat. `total` counts every delivery since the last clear.
struct DeliveryLog: Sendable {
    let capacity: Int
    private var items: [GatewayDelivery] = []
    private var start = 0
    private(set) var total = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ delivery: GatewayDelivery) {
        total += 1
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

    mutating func clear() {
        items = []
        start = 0
        total = 0
    }
}
