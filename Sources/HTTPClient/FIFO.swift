/// A first-in first-out queue with O(1) amortised append and pop (an array and a head index,
/// compacted when the consumed prefix dominates): an HTTP/2 connection's stream deadlines, a
/// connection pool's waiting requests.
///
/// Inlinable, so each user's module specializes it (Push's pool pops one per token).
public struct FIFO<Element: Sendable & Equatable>: Sendable {
    @inlinable public init() {}

    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable public var count: Int { storage.count - head }
    @inlinable public var isEmpty: Bool { head >= storage.count }

    @inlinable public var first: Element? { head < storage.count ? storage[head] : nil }

    @inlinable public mutating func append(_ element: Element) { storage.append(element) }

    @inlinable public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    @inlinable public mutating func removeAll() -> [Element] {
        let rest = Array(storage[head...])
        storage = []
        head = 0
        return rest
    }

    /// Removes the first occurrence; O(n), for the rare cancellation.
    @inlinable public mutating func remove(_ element: Element) -> Bool {
        guard let i = storage[head...].firstIndex(of: element) else { return false }
        storage.remove(at: i)
        return true
    }
}
