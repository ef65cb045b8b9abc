/// How long a commit waits for the disk before the write it carries is acknowledged: the
/// `PRAGMA synchronous` level used with WAL.
///
/// The state file always runs in WAL mode: a commit appends frames to the log instead of
/// rewriting pages in place, readers never block the writer, and one sync per commit covers a
/// whole group of writes.
///
/// The default is ``processCrash`` (`synchronous=NORMAL`), chosen deliberately:
/// - A commit in WAL/NORMAL has handed its frames to the kernel before `COMMIT` returns. A killed
///   server (SIGKILL, a crash, an OOM kill) loses nothing it acknowledged: the kernel still writes
///   those pages, and the next open replays the log. That is the failure a mock server meets, and
///   what the crash test exercises with SIGKILL.
/// - What NORMAL gives up is a power cut or kernel crash within the moments before the next
///   checkpoint's sync; on a developer machine or a CI runner that failure takes the whole
///   environment, and the tests using the mock, down with it.
/// - Writes in flight together share a commit (MockServer pipelines them through
///   `SQLiteStateStore.enqueue`), so a sync is paid per group, not per write; still, with FULL every
///   group costs one fsync (about 2.5 ms on this kind of disk), which caps a lone writer at ~400
///   writes/s, while NORMAL keeps a commit at tens of microseconds.
///
/// ``powerLoss`` (`synchronous=FULL`, an fsync of the WAL at every commit) is there for callers
/// that value power-cut durability over throughput.
public enum StateDurability: Sendable, Equatable {
    /// `synchronous=NORMAL`: acknowledged writes survive the process being killed.
    case processCrash
    /// `synchronous=FULL`: acknowledged writes survive the machine losing power, too.
    case powerLoss

    public static let `default` = StateDurability.processCrash

    /// True when a commit waits for the disk (an fsync): such commits never run on a server loop.
    var syncsEachCommit: Bool { self == .powerLoss }

    var pragma: String {
        switch self {
        case .processCrash: return "PRAGMA synchronous = NORMAL"
        case .powerLoss: return "PRAGMA synchronous = FULL"
        }
    }
}
