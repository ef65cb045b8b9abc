import Clock
import Synchronization

/// True time for every device an ``AdapterHost`` runs, and one queue of their timers ordered
/// by true deadline, so `advance` fires them in time order across devices in O(log n) each.
///
/// ```swift
/// let timeline = VirtualTimeline(now: start)
/// let phone = VirtualDeviceClock(timeline: timeline, offsetMilliseconds: 3_600_000)  // an hour fast
/// phone.schedule(after: .seconds(60)) { print("device timer") }
/// timeline.nextDeadline   // start + 60 s, in true time
/// ```
public final class VirtualTimeline: Sendable {
    struct Entry {
        let deadline: Instant
        let sequence: UInt64
        let token: TimerToken
        let work: @Sendable () -> Void
    }

    /// One scheduled timer's cancellation flag, read and written only under the timeline's lock.
    final class TimerToken: @unchecked Sendable {
        var cancelled = false
    }

    private struct State {
        var now: Instant
        var heap: [Entry] = []
        /// Cancelled entries still in the heap; past half of it, the heap is rebuilt without them.
        var cancelledCount = 0
        var nextSequence: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(now: Instant) {
        state = Mutex(State(now: now))
    }

    /// True time now.
    public var now: Instant { state.withLock { $0.now } }

    /// The earliest pending timer in true time, or nil.
    public var nextDeadline: Instant? {
        state.withLock { s in
            Self.dropCancelled(&s)
            return s.heap.first?.deadline
        }
    }

    /// Entries in the heap, cancelled ones included (for tests of the compaction).
    var heapCount: Int { state.withLock { $0.heap.count } }

    /// Runs `work` when true time reaches `deadline`.
    func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) -> TimerToken {
        let token = TimerToken()
        state.withLock { s in
            let sequence = s.nextSequence
            s.nextSequence += 1
            Self.push(Entry(deadline: deadline, sequence: sequence, token: token, work: work), into: &s.heap)
        }
        return token
    }

    func cancel(_ token: TimerToken) {
        state.withLock { s in
            guard !token.cancelled else { return }
            token.cancelled = true
            s.cancelledCount += 1
            if s.cancelledCount > 64 && s.cancelledCount * 2 > s.heap.count {
                // Far-future timers cancelled early would otherwise sit in the heap until their time.
                let live = s.heap.filter { !$0.token.cancelled }
                s.heap = []
                s.heap.reserveCapacity(live.count)
                for entry in live { Self.push(entry, into: &s.heap) }
                s.cancelledCount = 0
            }
        }
    }

    /// Sets true time without firing anything (the caller fires what is due first).
    func set(now: Instant) {
        state.withLock { $0.now = now }
    }

    /// Removes and returns every timer due at the earliest deadline, if that is at or before
    /// `target`, in scheduling order; true time moves to that deadline.
    func popEarliest(notAfter target: Instant) -> (Instant, [Entry])? {
        state.withLock { s in
            Self.dropCancelled(&s)
            guard let first = s.heap.first, first.deadline <= target else { return nil }
            let deadline = first.deadline
            var due: [Entry] = []
            while let top = s.heap.first, top.deadline == deadline {
                let entry = Self.pop(&s.heap)
                if entry.token.cancelled {
                    s.cancelledCount -= 1
                } else {
                    entry.token.cancelled = true  // fired: a late cancel is a no-op
                    due.append(entry)
                }
            }
            if deadline > s.now { s.now = deadline }
            return (deadline, due)
        }
    }

    private static func dropCancelled(_ s: inout State) {
        while let top = s.heap.first, top.token.cancelled {
            _ = pop(&s.heap)
            s.cancelledCount -= 1
        }
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        (a.deadline, a.sequence) < (b.deadline, b.sequence)
    }

    private static func push(_ entry: Entry, into heap: inout [Entry]) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func pop(_ heap: inout [Entry]) -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var best = parent
                if left < heap.count && before(heap[left], heap[best]) { best = left }
                if right < heap.count && before(heap[right], heap[best]) { best = right }
                if best == parent { break }
                heap.swapAt(parent, best)
                parent = best
            }
        }
        return top
    }
}
