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
    private let released = Atomic<Int>(0)

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
        released.add(bytes, ordering: .relaxed)
    }

    /// Every byte given back since the budget was made (wrapping): how much body memory has
    /// been freed, for deciding when to hand it back to the kernel.
    public var releasedBytes: Int { released.load(ordering: .relaxed) }

    /// Bytes held now.
    public var heldBytes: Int { held.load(ordering: .relaxed) }

    /// The answer to a request whose body would pass a connection's bound or the server's
    /// budget, over HTTP/1.1 and HTTP/2 alike: a client can retry later.
    public static let exhausted = HTTPParseError(
        status: 503,
        message: "the server holds as many unfinished request bodies as it may (per connection and in all); retry later"
    )
}

/// The bytes one HTTP/1.1 parser holds against a ``BodyBudget`` for the body it is reading,
/// given back when the body is handed over, the parser fails, or the last copy of the parser
/// goes away with its connection.
///
/// A class so that going away gives the bytes back; confined, like its parser, to one queue.
final class BodyCharge: @unchecked Sendable {
    let budget: BodyBudget
    private(set) var bytes = 0

    init(budget: BodyBudget) { self.budget = budget }

    deinit { budget.release(bytes) }

    /// Grows the charge to `target` bytes; false (nothing taken) when the budget is spent.
    func grow(to target: Int) -> Bool {
        guard target > bytes else { return true }
        guard budget.reserve(target - bytes) else { return false }
        bytes = target
        return true
    }

    func releaseAll() {
        budget.release(bytes)
        bytes = 0
    }
}
