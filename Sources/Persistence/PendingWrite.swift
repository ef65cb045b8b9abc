/// Events handed to ``SQLiteStateStore/enqueue(_:)``, not yet known to be durable.
public struct PendingWrite: Sendable {
    let file: StateFile
    let pending: GroupCommitter.Pending

    /// Returns once the events are committed; throws when the disk refused them (nothing of
    /// them is stored then).
    public func wait() throws(StateStoreError) {
        try file.wait(for: pending)
    }
}
