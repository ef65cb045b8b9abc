/// A binary min-heap of scheduled entries ordered by (deadline, sequence), so ties run in
/// scheduling order. Cancellation is lazy: a cancelled entry stays until it reaches the top
/// or until a sweep; sweeps run when the heap has doubled since the last one, so cancelled
/// far-future timers cost amortised O(1) each and never hold more than about half the heap.
struct TimerHeap {
    struct Entry {
        let deadline: Instant
        let sequence: UInt64
        let handle: ScheduledHandle
        let work: @Sendable () -> Void

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    /// Size after the last sweep; the next sweep comes when the heap reaches twice this.
    private var sweptSize = 32

    var count: Int { entries.count }

    /// The earliest entry not cancelled; cancelled ones found on top on the way are dropped.
    var earliestLive: Entry? {
        mutating get {
            while let top = entries.first, top.handle.isCancelled { _ = removeEarliest() }
            return entries.first
        }
    }

    mutating func insert(_ entry: Entry) {
        if entries.count >= 2 * sweptSize { sweepCancelled() }
        entries.append(entry)
        siftUp(from: entries.count - 1)
    }

    /// Removes the top entry (the caller checked there is one).
    mutating func removeEarliest() -> Entry {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return last }
        let top = entries[0]
        entries[0] = last
        siftDown(from: 0)
        return top
    }

    /// Drops every cancelled entry and rebuilds the heap in O(n).
    private mutating func sweepCancelled() {
        entries.removeAll { $0.handle.isCancelled }
        if entries.count > 1 {
            for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
        }
        sweptSize = max(32, entries.count)
    }

    private mutating func siftUp(from start: Int) {
        let moving = entries[start]
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard moving.precedes(entries[parent]) else { break }
            entries[child] = entries[parent]
            child = parent
        }
        entries[child] = moving
    }

    private mutating func siftDown(from start: Int) {
        let moving = entries[start]
        let count = entries.count
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            let child = right < count && entries[right].precedes(entries[left]) ? right : left
            guard entries[child].precedes(moving) else { break }
            entries[parent] = entries[child]
            parent = child
        }
        entries[parent] = moving
    }
}
