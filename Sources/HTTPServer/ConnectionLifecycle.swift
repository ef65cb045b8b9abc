/// A connection's life as one value, and what it does next once its output is written: a
/// handler asks to close after the flush (lingering when the peer may still be sending), TLS
/// says close_notify first, then the connection lingers or closes. No two steps can hold at
/// once, as separate flags could ("closing" and "lingering", "closed" and "closing").
///
/// ```swift
/// var life = ConnectionLifecycle()
/// life.closeAfterFlush(linger: true)
/// life.outputFlushed(tls: true, reading: true)   // .sendCloseNotify, then .linger
/// ```
struct ConnectionLifecycle: Equatable {
    enum Phase: Equatable {
        /// Reading requests and answering them.
        case open
        /// Closes once pending output is written (after TLS's close_notify, once
        /// `closeNotifySent`). With `linger`, the peer may still be sending: the connection
        /// lingers instead of closing at once.
        case closingAfterFlush(linger: Bool, closeNotifySent: Bool)
        /// Written out and shut down for writing; reading and discarding until the peer's EOF
        /// (or a short deadline), so a client still sending does not get a reset that could
        /// destroy the answer it has not read yet (RFC 9112 §9.6).
        case lingering
        case closed
    }

    /// What the connection does now that its output is written.
    enum Step: Equatable {
        /// Nothing: it stays as it is.
        case none
        /// Say goodbye inside TLS, so the client can tell the end from a truncation; flush it,
        /// then ask again.
        case sendCloseNotify
        /// Shut down for writing and drain the peer (``Phase/lingering``).
        case linger
        case close
    }

    private(set) var phase = Phase.open

    var isClosed: Bool {
        if case .closed = phase { true } else { false }
    }

    var isLingering: Bool {
        if case .lingering = phase { true } else { false }
    }

    /// A handler asks to close once pending output is written; false when that changes nothing
    /// (already lingering or closed). A later ask without `linger` keeps an earlier one's.
    @discardableResult
    mutating func closeAfterFlush(linger: Bool) -> Bool {
        switch phase {
        case .open:
            phase = .closingAfterFlush(linger: linger, closeNotifySent: false)
        case .closingAfterFlush(let lingers, let closeNotifySent):
            phase = .closingAfterFlush(linger: lingers || linger, closeNotifySent: closeNotifySent)
        case .lingering, .closed:
            return false
        }
        return true
    }

    /// All pending output is written. `tls`: the connection speaks TLS; `reading`: the peer has
    /// not ended its side (only then is there anything to linger for).
    mutating func outputFlushed(tls: Bool, reading: Bool) -> Step {
        guard case .closingAfterFlush(let linger, let closeNotifySent) = phase else { return .none }
        if tls && !closeNotifySent {
            phase = .closingAfterFlush(linger: linger, closeNotifySent: true)
            return .sendCloseNotify
        }
        if linger && reading {
            phase = .lingering
            return .linger
        }
        return .close
    }

    mutating func closed() {
        phase = .closed
    }
}
