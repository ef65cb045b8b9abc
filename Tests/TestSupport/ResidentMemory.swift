import Foundation

/// The test process's resident memory, for tests that pin what an input may cost.
public enum ResidentMemory {
    /// Resident bytes now (`/proc/self/statm`), or 0 where there is no procfs.
    public static func bytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `body`'s result and how much resident memory grew while it ran and while the result is
    /// held (other tests run alongside, so bounds must leave room).
    public static func growth<T>(_ body: () throws -> T) rethrows -> (T, Int) {
        let before = bytes()
        let value = try body()
        return (value, bytes() - before)
    }
}
