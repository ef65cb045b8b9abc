/// Holds values a locked section replaced, so they are freed after the lock is released:
/// dropping a 100,000-token state or push record takes long enough to stall checks.
///
/// ```swift
/// let trash = Trash()
/// state.withLock { s in trash.keep(s.install(built)) }   // old projects freed when `trash` goes
/// ```
final class Trash {
    // Only touched inside the one locked section that fills it, then released as a whole.
    private var items: [Any] = []

    func keep(_ value: Any) { items.append(value) }
}
