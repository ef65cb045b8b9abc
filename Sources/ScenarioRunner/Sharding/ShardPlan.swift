/// Splits a run's items (scenarios, and files in error) into shards: deterministic, each item
/// in exactly one shard, whatever machine computes it.
///
/// Without timings the items are dealt round-robin in run order, so shard sizes differ by at
/// most one. With timings (wall seconds by name, from an earlier run's results) the longest
/// item goes first to the least loaded shard (ties: the lower shard), as pytest-split does;
/// an item the timings do not know counts as their median.
///
/// ```swift
/// ShardPlan.assign(["a", "b", "c"], shards: 2, timings: [:])              // [0, 1, 0]
/// ShardPlan.assign(["a", "b", "c"], shards: 2, timings: ["a": 9, "b": 1, "c": 1])  // [0, 1, 1]
/// ```
public enum ShardPlan {
    /// The 0-based shard of each key, in the keys' order.
    public static func assign(_ keys: [String], shards: Int, timings: [String: Double]) -> [Int] {
        guard shards > 1 else { return Array(repeating: 0, count: keys.count) }
        let known = keys.compactMap { timings[$0] }.filter { $0.isFinite && $0 >= 0 }
        guard !known.isEmpty else { return keys.indices.map { $0 % shards } }
        let sorted = known.sorted()
        let median = sorted[sorted.count / 2]
        let costs = keys.map { key -> Double in
            guard let t = timings[key], t.isFinite, t >= 0 else { return median }
            return t
        }
        // Longest first; equal costs in run order, so the result never depends on a hash.
        let order = keys.indices.sorted { costs[$0] != costs[$1] ? costs[$0] > costs[$1] : $0 < $1 }
        var load = Array(repeating: 0.0, count: shards)
        var count = Array(repeating: 0, count: shards)
        var out = Array(repeating: 0, count: keys.count)
        for item in order {
            var best = 0
            for shard in 1..<shards
            where load[shard] < load[best] || (load[shard] == load[best] && count[shard] < count[best]) {
                best = shard
            }
            out[item] = best
            load[best] += costs[item]
            count[best] += 1
        }
        return out
    }
}
