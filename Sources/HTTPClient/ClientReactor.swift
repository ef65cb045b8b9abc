import Reactor
import Synchronization

/// The process's shared client reactor: every client connection that is not given its own
/// reactor sits on this one (one serial queue, one epoll set), started on first use.
///
/// ```swift
/// let reactor = try ClientReactor.shared()
/// ```
public enum ClientReactor {
    /// Deadlines (connect and read timeouts) are checked this often: 10 ms.
    public static let sweepInterval: UInt64 = 10_000_000

    private static let instance = Mutex<Reactor?>(nil)

    public static func shared() throws(HTTPClientError) -> Reactor {
        let result: Result<Reactor, HTTPClientError> = instance.withLock { slot in
            if let reactor = slot { return .success(reactor) }
            do {
                let reactor = try Reactor(label: "lerix.client", sweepInterval: sweepInterval)
                reactor.start()
                slot = reactor
                return .success(reactor)
            } catch {
                return .failure(.ioFailed(peer: "-", reason: "could not create the client reactor: \(error)"))
            }
        }
        return try result.get()
    }
}
