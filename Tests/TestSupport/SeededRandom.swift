import Randomness

/// The package's one seeded generator (``SplitMix64``), so randomized tests replay exactly.
public typealias SeededRandom = SplitMix64

extension SplitMix64 {
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}
