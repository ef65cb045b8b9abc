/// One part of a run split across CI machines: `--shard 2/3` is the second of three.
///
/// `index` is 1-based, as `--shard`, Playwright's `--shard=i/n`, Jest and GitLab's
/// `CI_NODE_INDEX` count; Bazel's `TEST_SHARD_INDEX` is 0-based and is converted when read
/// (``fromEnvironment(_:)``).
///
/// ```swift
/// let shard = try Shard.parse("2/3")     // Shard(index: 2, total: 3)
/// ```
public struct Shard: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// 1-based.
    public var index: Int
    public var total: Int

    public init(index: Int, total: Int) {
        self.index = index
        self.total = total
    }

    public var description: String { "\(index)/\(total)" }

    /// The most shards a run may be split into: more is surely a mistake (a swapped I/N).
    public static let maximumTotal = 10_000

    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// `I/N` with 1 ≤ I ≤ N.
    public static func parse(_ text: String) throws(Problem) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let total = Int(parts[1]) else {
            throw Problem(description: "--shard takes I/N (the I-th of N shards, counted from 1), not '\(text)'")
        }
        return try checked(index: index, total: total, source: "--shard \(text)", base: 1)
    }

    static func checked(index: Int, total: Int, source: String, base: Int) throws(Problem) -> Shard {
        guard total >= 1, total <= maximumTotal else {
            throw Problem(description: "\(source): the number of shards must be 1 to \(maximumTotal), not \(total)")
        }
        let first = base
        let last = total - 1 + base
        guard index >= first, index <= last else {
            throw Problem(
                description:
                    "\(source): the shard index counts from \(base), so it must be \(first) to \(last), not \(index)"
            )
        }
        return Shard(index: index - base + 1, total: total)
    }

    /// Where a shard came from when no `--shard` was given: Bazel's `TEST_TOTAL_SHARDS` and
    /// 0-based `TEST_SHARD_INDEX`, else GitLab's `CI_NODE_TOTAL` and 1-based `CI_NODE_INDEX`.
    /// Nil when neither pair is set (or the total is 1 with no index, GitLab's default).
    public static func fromEnvironment(_ environment: [String: String]) throws(Problem) -> Shard? {
        if let totalText = environment["TEST_TOTAL_SHARDS"] {
            guard let total = Int(totalText) else {
                throw Problem(description: "TEST_TOTAL_SHARDS must be a whole number, not '\(totalText)'")
            }
            guard let indexText = environment["TEST_SHARD_INDEX"], let index = Int(indexText) else {
                throw Problem(
                    description:
                        "TEST_TOTAL_SHARDS=\(totalText) needs TEST_SHARD_INDEX (0-based), found '\(environment["TEST_SHARD_INDEX"] ?? "")'"
                )
            }
            return try checked(index: index, total: total, source: "TEST_SHARD_INDEX=\(indexText)", base: 0)
        }
        if let totalText = environment["CI_NODE_TOTAL"] {
            guard let total = Int(totalText) else {
                throw Problem(description: "CI_NODE_TOTAL must be a whole number, not '\(totalText)'")
            }
            guard let indexText = environment["CI_NODE_INDEX"] else {
                if total == 1 { return nil }
                throw Problem(description: "CI_NODE_TOTAL=\(totalText) needs CI_NODE_INDEX (1-based)")
            }
            guard let index = Int(indexText) else {
                throw Problem(description: "CI_NODE_INDEX must be a whole number, not '\(indexText)'")
            }
            return try checked(index: index, total: total, source: "CI_NODE_INDEX=\(indexText)", base: 1)
        }
        return nil
    }
}
