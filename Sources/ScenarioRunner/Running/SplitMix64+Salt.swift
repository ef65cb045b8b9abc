import Randomness
import ReleaseControl

extension SplitMix64 {
    /// The runner's generator for one purpose: the run's seed mixed with what it is for (a
    /// scenario's name, "shuffle", an explore run), so `--seed N` replays each exactly and
    /// purposes draw apart.
    init(seed: UInt64, salt: String) {
        self.init(seed: seed ^ FNV1a64.hash(salt.utf8))
    }
}
