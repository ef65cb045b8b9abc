/// Scheduled work by deadline, ties in scheduling order, kept as a binary min-heap of buckets:
/// work scheduled one after another for the same deadline joins one bucket, in scheduling order.
///
/// A fleet's devices poll in step: every device whose timer fires at one instant sets its next
/// one a lifetime later, all for the same deadline, one after another. They then cost one heap
/// entry, not a thousand, and the instant comes out as one array (the batch handed to
/// ``ManualScheduler/advance(to:eachInstant:)``), not a thousand heap pops.
///
/// Only the bucket the last insert went to takes more work (a bucket is looked up by no other
/// way), so each bucket holds a run of consecutive sequence numbers of its deadline: ordering
/// the heap by (deadline, first sequence) and emptying the buckets of a deadline in heap order
/// gives scheduling order, however entries at other deadlines interleaved.
///
/// The heap orders plain keys (deadline, first sequence, slot) while the buckets wait in a slot
/// table: sifting moves no references. Freed slots are reused.
///
/// Cancellation is lazy: a cancelled entry stays until its bucket comes due or until a sweep;
/// sweeps run when the entries held have doubled since the last one, so cancelled far-future
/// timers cost amortised O(1) each and never hold more than about half the entries.
struct TimerHeap {
    /// What the heap orders: a bucket's place in time and where the bucket waits.
    private struct Key {
        let deadline: Instant
        /// The sequence of the bucket's first entry.
        let sequence: UInt64
        let slot: Int

        func precedes(_ other: Key) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    /// Entries of one deadline in scheduling order; `due[..<firstMaybeLive]` are known cancelled.
    private struct Bucket {
        var due: [DueWork] = []
        var firstMaybeLive = 0
    }

    private var keys: [Key] = []
    /// The buckets by slot; a free slot holds an empty bucket.
    private var buckets: [Bucket] = []
    private var freeSlots: [Int] = []
    /// The slot the last insert went to and its deadline; -1 when that bucket left the heap.
    private var lastSlot = -1
    private var lastDeadline = Instant(millisecondsSinceEpoch: 0)
    /// Entries held, cancelled ones not yet swept included.
    private(set) var count = 0
    /// Entries held after the last sweep; the next sweep comes when they reach twice this.
    private var sweptSize = 32

    /// Buckets in the heap (tests pin that tied work shares them).
    var bucketCount: Int { keys.count }

    /// The earliest deadline of an entry not cancelled; buckets found on top holding only
    /// cancelled entries are dropped on the way.
    var earliestLiveDeadline: Instant? {
        mutating get {
            while let top = keys.first {
                if firstLive(inSlot: top.slot) != nil { return top.deadline }
                removeTop()
            }
            return nil
        }
    }

    /// Takes `work` over (consumed: appended without a retain of its handle and closure).
    mutating func insert(deadline: Instant, sequence: UInt64, _ work: consuming DueWork) {
        if count >= 2 * sweptSize { sweepCancelled() }
        count += 1
        if lastSlot >= 0 && lastDeadline == deadline {
            buckets[lastSlot].due.append(work)
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = buckets.count
            buckets.append(Bucket())
        }
        buckets[slot].due.append(work)
        keys.append(Key(deadline: deadline, sequence: sequence, slot: slot))
        siftUp(from: keys.count - 1)
        lastSlot = slot
        lastDeadline = deadline
    }

    /// Removes every entry due at the earliest deadline and returns the live ones in
    /// scheduling order, with that deadline; nil when nothing live is held.
    mutating func removeEarliestInstant() -> (deadline: Instant, due: [DueWork])? {
        guard let deadline = earliestLiveDeadline else { return nil }
        var due = takeTopLive()
        while let top = keys.first, top.deadline == deadline {
            due.append(contentsOf: takeTopLive())
        }
        return (deadline, due)
    }

    /// Empties the top bucket out of the heap; its entries not cancelled, in order.
    private mutating func takeTopLive() -> [DueWork] {
        let slot = keys[0].slot
        let bucket = buckets[slot]
        removeTop()
        // Entries are mostly all live: then the bucket's own array is the batch, uncopied.
        if bucket.firstMaybeLive == 0 && !bucket.due.contains(where: { $0.handle.isCancelled }) { return bucket.due }
        return bucket.due[bucket.firstMaybeLive...].filter { !$0.handle.isCancelled }
    }

    /// The index of the first entry not cancelled in a bucket, remembering the cancelled ones
    /// passed (a cancelled entry never comes back).
    private mutating func firstLive(inSlot slot: Int) -> Int? {
        var index = buckets[slot].firstMaybeLive
        let count = buckets[slot].due.count
        while index < count && buckets[slot].due[index].handle.isCancelled { index += 1 }
        buckets[slot].firstMaybeLive = index
        return index < count ? index : nil
    }

    /// Takes the top bucket out of the heap and frees its slot.
    private mutating func removeTop() {
        let slot = keys[0].slot
        let last = keys.removeLast()
        if !keys.isEmpty {
            keys[0] = last
            siftDown(from: 0)
        }
        freeSlot(slot)
    }

    private mutating func freeSlot(_ slot: Int) {
        count -= buckets[slot].due.count
        buckets[slot] = Bucket()
        freeSlots.append(slot)
        if slot == lastSlot { lastSlot = -1 }
    }

    /// Drops every cancelled entry and every bucket left empty, and rebuilds the heap in O(n).
    private mutating func sweepCancelled() {
        var kept: [Key] = []
        kept.reserveCapacity(keys.count)
        for key in keys {
            let bucket = buckets[key.slot]
            if bucket.firstMaybeLive == 0 && !bucket.due.contains(where: { $0.handle.isCancelled }) {
                kept.append(key)
                continue
            }
            let live = bucket.due[bucket.firstMaybeLive...].filter { !$0.handle.isCancelled }
            if live.isEmpty {
                freeSlot(key.slot)
            } else {
                count -= bucket.due.count - live.count
                buckets[key.slot] = Bucket(due: live)
                kept.append(key)
            }
        }
        keys = kept
        if keys.count > 1 {
            for index in stride(from: keys.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
        }
        sweptSize = max(32, count)
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
