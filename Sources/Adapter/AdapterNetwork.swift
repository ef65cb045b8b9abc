import Dispatch
import LerixSDK
import Synchronization

/// The network an ``AdapterHost`` gives its devices, plus the one thing the host needs beyond
/// a ``Transport``: waiting until everything sent so far has been answered or has failed,
/// so a command returns only when the work it started is finished.
public protocol AdapterNetwork: Transport, AnyObject {
    /// Returns once every request sent so far, and every request their completions sent, has
    /// completed. Completions may run on the calling thread inside this call.
    func runUntilIdle()

    /// Starts writing what was sent so far without waiting for answers, so the server works
    /// while the host is still firing timers. Optional: the default does nothing.
    func startSending()
}

extension AdapterNetwork {
    public func startSending() {}
}

/// Any ``Transport`` as an ``AdapterNetwork``: counts requests in flight and waits on a
/// semaphore, so completions may arrive on any thread (URLSession's queue) or inline
/// (``InMemoryTransport``) without the waiting thread being one they need.
///
/// ```swift
/// let host = AdapterHost(network: TransportNetwork(InMemoryTransport { _ in .success(.init(status: 304)) }))
/// ```
public final class TransportNetwork: AdapterNetwork {
    private let transport: any Transport
    private let inFlight = Mutex<Int>(0)
    private let idle = DispatchSemaphore(value: 0)

    public init(_ transport: any Transport) {
        self.transport = transport
    }

    public func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        inFlight.withLock { $0 += 1 }
        transport.send(request) { [self] result in
            completion(result)
            let nowIdle = inFlight.withLock { count -> Bool in
                count -= 1
                return count == 0
            }
            if nowIdle { idle.signal() }
        }
    }

    public func runUntilIdle() {
        while inFlight.withLock({ $0 }) > 0 {
            _ = idle.wait(timeout: .now() + .milliseconds(100))
        }
        // Drain signals left over from requests that finished before anyone waited.
        while idle.wait(timeout: .now()) == .success {}
    }
}
