import Synchronization

/// Request-body bytes a whole server may hold at once, shared by all its connections: each
/// connection has its own bound too, but many connections that each stay under theirs (HTTP/2
/// uploads that never finish) must not add up to more memory than the machine has.
///
/// ```swift
/// let budget = BodyBudget(limit: 128 << 20)
/// if budget.reserve(chunk.count) { body += chunk } else { refuse() }   // …later:
/// budget.release(body.count)
/// ```
public final class BodyBudget: Sendable {
    public let limit: Int
    private let held = Atomic<Int>(0)

    public init(limit: Int) { self.limit = limit }

    /// Takes `bytes` from the budget; false (taking nothing) when that would pass the limit.
    public func reserve(_ bytes: Int) -> Bool {
        var current = held.load(ordering: .relaxed)
        while true {
            guard bytes <= limit - current else { return false }
            let (exchanged, original) = held.compareExchange(
                expected: current,
                desired: current + bytes,
                ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back bytes taken by ``reserve(_:)``.
    public func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        held.subtract(bytes, ordering: .relaxed)
    }

    /// Bytes held now.
    public var heldBytes: Int { held.load(ordering: .relaxed) }
}
