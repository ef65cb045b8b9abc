/// A binary min-heap of scheduled entries ordered by (deadline, sequence), so ties run in
/// scheduling order.
///
/// The heap orders plain keys (deadline, sequence, slot) while each entry's handle and work wait
/// in a slot table: sifting moves no references, so a level costs no retain and release (a
/// fleet's 100,000 device timers make the heap 17 levels deep). Freed slots are reused.
///
/// Cancellation is lazy: a cancelled entry stays until it reaches the top or until a sweep;
/// sweeps run when the heap has doubled since the last one, so cancelled far-future timers cost
/// amortised O(1) each and never hold more than about half the heap.
struct TimerHeap {
    struct Entry {
        let deadline: Instant
        let sequence: UInt64
        let handle: ScheduledHandle
        let work: @Sendable () -> Void
    }

    /// What the heap orders: an entry's place in time and where the entry waits.
    private struct Key {
        let deadline: Instant
        let sequence: UInt64
        let slot: Int

        func precedes(_ other: Key) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var keys: [Key] = []
    /// The entries by slot; nil once an entry has left the heap.
    private var slots: [Entry?] = []
    private var freeSlots: [Int] = []
    /// Size after the last sweep; the next sweep comes when the heap reaches twice this.
    private var sweptSize = 32

    var count: Int { keys.count }

    /// The earliest deadline of an entry not cancelled; cancelled ones found on top on the way
    /// are dropped.
    var earliestLiveDeadline: Instant? {
        mutating get {
            while let top = keys.first {
                if let entry = slots[top.slot], !entry.handle.isCancelled { return top.deadline }
                _ = removeEarliest()
            }
            return nil
        }
    }

    mutating func insert(_ entry: Entry) {
        if keys.count >= 2 * sweptSize { sweepCancelled() }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = entry
        } else {
            slot = slots.count
            slots.append(entry)
        }
        keys.append(Key(deadline: entry.deadline, sequence: entry.sequence, slot: slot))
        siftUp(from: keys.count - 1)
    }

    /// Removes the top entry; nil when the heap is empty.
    mutating func removeEarliest() -> Entry? {
        guard let top = keys.first else { return nil }
        let last = keys.removeLast()
        if !keys.isEmpty {
            keys[0] = last
            siftDown(from: 0)
        }
        return takeSlot(top.slot)
    }

    private mutating func takeSlot(_ slot: Int) -> Entry? {
        let entry = slots[slot]
        slots[slot] = nil
        freeSlots.append(slot)
        return entry
    }

    /// Drops every cancelled entry and rebuilds the heap in O(n).
    private mutating func sweepCancelled() {
        var kept: [Key] = []
        kept.reserveCapacity(keys.count)
        for key in keys {
            if let entry = slots[key.slot], !entry.handle.isCancelled {
                kept.append(key)
            } else {
                _ = takeSlot(key.slot)
            }
        }
        keys = kept
        if keys.count > 1 {
            for index in stride(from: keys.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
        }
        sweptSize = max(32, keys.count)
    }

    private mutating func siftUp(from start: Int) {
        let moving = keys[start]
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard moving.precedes(keys[parent]) else { break }
            keys[child] = keys[parent]
            child = parent
        }
        keys[child] = moving
    }

    private mutating func siftDown(from start: Int) {
        let moving = keys[start]
        let count = keys.count
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            let child = right < count && keys[right].precedes(keys[left]) ? right : left
            guard keys[child].precedes(moving) else { break }
            keys[parent] = keys[child]
            parent = child
        }
        keys[parent] = moving
    }
}
