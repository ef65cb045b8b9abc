import Dispatch

/// A submitted batch of events, acknowledged once its transaction commits (or fails).
///
/// `wait()` blocks the calling thread: call it from a request-handling thread, never from a
/// serial queue that other connections need. Or pass a completion to `submit` and never block.
///
/// ```swift
/// let ticket = store.submit([.tokenUpserted(project: "demo", token: t, platform: "ios")])  // under the state lock: fixes the order
/// try ticket.wait()                                                                        // outside it: shares the fsync
/// ```
final class CommitTicket: @unchecked Sendable {
    // `outcome` is written once by the writer thread before `done.signal()`, and read only after
    // `done.wait()` returns: the semaphore orders the two, so no lock is needed.
    private let done = DispatchSemaphore(value: 0)
    private var outcome: StateStoreError?
    private let completion: (@Sendable (StateStoreError?) -> Void)?

    init(completion: (@Sendable (StateStoreError?) -> Void)? = nil) {
        self.completion = completion
    }

    /// Blocks until the batch is durable; throws when it could not be saved.
    func wait() throws(StateStoreError) {
        done.wait()
        done.signal()  // later waits return at once
        if let outcome { throw outcome }
    }

    /// Called once, by the writer thread.
    func finish(_ error: StateStoreError?) {
        outcome = error
        completion?(error)
        done.signal()
    }
}
