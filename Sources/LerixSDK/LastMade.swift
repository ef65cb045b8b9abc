import Synchronization

/// The value made last for a key, shared by every SDK instance in the process: a fleet's
/// devices of one class ask in turn for the same check URL, the same check request, the same
/// server time read from the same text, so the one made last is kept and given to the next
/// asker with an equal key (one warm copy, not one a device; two devices' strings then compare
/// equal at their identity).
struct LastMade<Key: Equatable & Sendable, Value: Sendable>: ~Copyable, Sendable {
    // Not private: Swift 6.3.1 crashes compiling a test module that uses LastMade when it is
    // (a private type nested in a generic noncopyable one; LLVM's verifier: "Global is
    // external, but doesn't have external or weak linkage").
    struct Made {
        let key: Key
        let value: Value
    }

    private let last = Mutex<Made?>(nil)

    init() {}

    /// The value kept for `key`, else `make(key)`'s, kept for the next asker (made outside the lock).
    @inline(__always)
    func value(for key: Key, orMake make: (Key) -> Value) -> Value {
        if let known = last.withLock({ $0?.key == key ? $0?.value : nil }) { return known }
        let made = make(key)
        last.withLock { $0 = Made(key: key, value: made) }
        return made
    }
}
