import Synchronization

/// The in-memory twin of a durable store: the default without `--state`, and the store tests
/// inspect. It keeps every event it was given and can be told to refuse writes.
///
/// ```swift
/// let store = MemoryStateStore()
/// store.failWrites = true      // the next admin write answers 503
/// store.events                 // what was acknowledged so far
/// ```
public final class MemoryStateStore: StateStore {
    private struct State {
        var snapshot: StateSnapshot?
        var events: [StateEvent] = []
        var failWrites = false
        var keepsEvents: Bool
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - initial: what `load()` answers (nil: a new store).
    ///   - keepsEvents: record every event for inspection (tests); off for the default server,
    ///     so memory does not grow with traffic.
    public init(initial: StateSnapshot? = nil, keepsEvents: Bool = true) {
        state = Mutex(State(snapshot: initial, keepsEvents: keepsEvents))
    }

    public func load() throws -> StateSnapshot? { state.withLock { $0.snapshot } }

    public func apply(_ events: [StateEvent]) throws {
        try state.withLock { s throws(StoreRefused) in
            if s.failWrites { throw StoreRefused() }
            if s.keepsEvents { s.events.append(contentsOf: events) }
        }
    }

    /// Every event applied so far, in order.
    public var events: [StateEvent] { state.withLock { $0.events } }

    /// When true, `apply` throws, as a full or read-only disk would.
    public var failWrites: Bool {
        get { state.withLock { $0.failWrites } }
        set { state.withLock { $0.failWrites = newValue } }
    }

    public struct StoreRefused: Error, CustomStringConvertible {
        public var description: String { "the memory store was told to refuse writes" }
    }
}
