/// The most recent deliveries, at most `capacity` of them and at most `maxBytes` of what they
/// cost to keep (``GatewayDelivery/keptBytes``): a long run or a huge fan-out keeps memory flat.
/// Bounding the count alone was not enough: a kept FCM delivery could cost 16.7 KB, so the
/// default 200,000 came to about 3.2 GB. `total` counts every delivery since the last clear.
/// Each delivery gets the next sequence number (1, 2, …, never reused, not even after a clear):
/// the cursor `GET /deliveries` pages by.
struct DeliveryLog: Sendable {
    let capacity: Int
    let maxBytes: Int
    /// Kept deliveries from `head` on, oldest first; the slots before `head` are spent.
    private var items: [GatewayDelivery] = []
    private var costs: [Int] = []
    private var head = 0
    /// What the kept deliveries cost, by ``GatewayDelivery/keptBytes``.
    private(set) var bytes = 0
    private(set) var total = 0
    private var lastSequence = 0

    /// `maxBytes` is at least 2 MiB, so any one delivery (a body is at most 1 MiB) fits.
    init(capacity: Int, maxBytes: Int = 64 << 20) {
        self.capacity = max(1, capacity)
        self.maxBytes = max(2 << 20, maxBytes)
    }

    var count: Int { items.count - head }

    /// Takes `delivery` over (moved in, not copied: each copy of a delivery retains and
    /// releases its five buffers, and a push paid for four).
    mutating func append(_ delivery: consuming GatewayDelivery) {
        var kept = delivery
        // Its own buffer, sized to the body, when the request's is far larger than its bytes
        // (Array(_:) of a whole array or slice would share that buffer). A body already in a
        // buffer of about its size is kept as it is: copying every one cost the push fan-out
        // bench ~1,300 instructions a token.
        if kept.body.capacity > kept.body.count + max(64, kept.body.count / 4) {
            let body = kept.body
            kept.body = [UInt8](unsafeUninitializedCapacity: body.count) { buffer, initialized in
                initialized = buffer.initialize(fromContentsOf: body)
            }
        }
        let cost = kept.keptBytes
        total += 1
        lastSequence += 1
        while count > 0 && (count >= capacity || bytes + cost > maxBytes) { dropOldest() }
        items.append(kept)
        costs.append(cost)
        bytes += cost
    }

    private mutating func dropOldest() {
        bytes -= costs[head]
        items[head].body = []  // freed now, not at the next compaction
        head += 1
        if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            costs.removeFirst(head)
            head = 0
        }
    }

    /// Oldest first.
    var all: [GatewayDelivery] { Array(items[head...]) }

    var dropped: Int { total - count }

    /// One page, oldest first: up to `limit` deliveries numbered above `after` that pass
    /// `include`, and at most about `maxBytes` of them (at least one), with their sequence
    /// numbers, and whether more such deliveries follow. Copies only the page, however large the log.
    func page(
        after: Int,
        limit: Int,
        maxBytes: Int = .max,
        where include: (GatewayDelivery) -> Bool
    )
        -> (items: [(sequence: Int, delivery: GatewayDelivery)], more: Bool)
    {
        let firstSequence = lastSequence - count + 1
        var sequence = max(after + 1, firstSequence)
        var page: [(sequence: Int, delivery: GatewayDelivery)] = []
        page.reserveCapacity(min(limit, 1024))
        var pageBytes = 0
        while sequence <= lastSequence {
            let position = head + (sequence - firstSequence)
            let delivery = items[position]
            if include(delivery) {
                if page.count == limit || (!page.isEmpty && pageBytes + costs[position] > maxBytes) {
                    return (page, true)
                }
                page.append((sequence, delivery))
                pageBytes += costs[position]
            }
            sequence += 1
        }
        return (page, false)
    }

    mutating func clear() {
        items = []
        costs = []
        head = 0
        bytes = 0
        total = 0
    }
}
