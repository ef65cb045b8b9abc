/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fully deterministic generator, so a seeded
/// run (`scenarios --seed`, `--shuffle`, `explore`) or a randomized test replays exactly on
/// every machine. The one seeded generator of the package.
///
/// ```swift
/// var rng = SplitMix64(seed: 7)
/// let roll = Int.random(in: 1...6, using: &rng)
/// let card = rng.below(52)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` by remainder (0 when `n` is 0 or less): cheap and, for the small `n`
    /// tests and draws use, as good as uniform.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

    /// Uniform in [0, 1): the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
