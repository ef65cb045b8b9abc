#if canImport(Glibc)
import CSockets
import Glibc

/// A level-triggered epoll instance: register descriptors once, then collect the ready ones
/// in batches without blocking.
///
/// The server puts one Dispatch read source on ``fd`` (an epoll descriptor is readable while
/// any registered descriptor is ready) and drains it with ``poll(_:)``: one Dispatch wake-up
/// serves every ready connection, and no per-event re-arming is needed.
///
/// ```swift
/// let epoll = try Epoll()
/// try epoll.add(clientFD, interest: .readable)
/// epoll.poll { fd, events in if events.contains(.readable) { ... } }
/// ```
public final class Epoll: @unchecked Sendable {
    // Callers confine `poll` to one queue; the kernel object itself is thread-safe.

    /// What a descriptor is ready for (or what to watch it for).
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        /// The peer shut down its side (`EPOLLRDHUP`): a read will see end of stream.
        public static let readHangup = Events(rawValue: EPOLLRDHUP.rawValue)
        /// Both directions are gone (`EPOLLHUP`); always reported.
        public static let hangup = Events(rawValue: EPOLLHUP.rawValue)
        /// A pending socket error (`EPOLLERR`); always reported.
        public static let error = Events(rawValue: EPOLLERR.rawValue)
    }

    public let fd: Int32
    private let capacity = 256
    private let events: UnsafeMutablePointer<epoll_event>

    public init() throws {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SocketError(call: "epoll_create1", errno: errno) }
        self.fd = fd
        self.events = .allocate(capacity: capacity)
    }

    deinit {
        events.deallocate()
        Glibc.close(fd)
    }

    public func add(_ target: Int32, interest: Events) throws {
        try control(EPOLL_CTL_ADD, target, interest, "epoll_ctl(ADD)")
    }

    public func modify(_ target: Int32, interest: Events) throws {
        try control(EPOLL_CTL_MOD, target, interest, "epoll_ctl(MOD)")
    }

    /// Stops watching `target` (call before closing it).
    public func remove(_ target: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, &event)
    }

    private func control(_ op: Int32, _ target: Int32, _ interest: Events, _ label: String) throws {
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.fd = target
        guard epoll_ctl(fd, op, target, &event) == 0 else { throw SocketError(call: label, errno: errno) }
    }

    /// Calls `body` for every ready descriptor, without blocking. Returns how many were ready.
    @discardableResult
    public func poll(_ body: (Int32, Events) -> Void) -> Int {
        var total = 0
        while true {
            let n = epoll_wait(fd, events, Int32(capacity), 0)
            if n < 0 {
                if errno == EINTR { continue }
                return total
            }
            for i in 0..<Int(n) {
                body(events[i].data.fd, Events(rawValue: events[i].events))
            }
            total += Int(n)
            if Int(n) < capacity { return total }
        }
    }
}
#endif
