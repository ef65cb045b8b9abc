import Sockets

/// What a ``Reactor`` drives: one registered descriptor's owner (a server connection, a
/// client socket). Called only on the reactor's queue.
public protocol ReactorHandler: AnyObject {
    /// Epoll reported the descriptor ready (or in error / hung up).
    func handle(_ events: Epoll.Events)
    /// Monotonic nanoseconds (``Reactor/now()``) after which ``deadlinePassed()`` is due; 0 for none.
    /// Read by every sweep, so keep it a stored property.
    var deadline: UInt64 { get }
    /// The sweep found ``deadline`` passed. The handler decides what that means (a 408, a
    /// connect timeout) and usually closes.
    func deadlinePassed()
}
