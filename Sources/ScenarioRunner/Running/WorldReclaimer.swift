import Dispatch

/// Frees finished scenarios' worlds on a thread of its own: taking a 100,000-device world apart
/// (every device's SDK, timers and saved answer, the server's state) is about half a second
/// that neither the next scenario nor the report waits for. A world is closed first (its
/// sockets, processes and storage folder), so what is left to free is memory no other world
/// shares; outcomes hold no reference into it.
enum WorldReclaimer {
    private static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "lerix-mock.world-reclaimer", qos: .utility)
        queue.setSpecific(key: mark, value: ())
        return queue
    }()
    private static let mark = DispatchSpecificKey<Void>()

    /// True on the reclaimer's thread, while it takes a world apart (for tests).
    static var isTakingApart: Bool { DispatchQueue.getSpecific(key: mark) != nil }

    /// Hands over the last references to a finished scenario's world and execution.
    static func takeApart(_ world: consuming ScenarioWorld, _ execution: consuming ScenarioExecution) {
        let parcel = Parcel(world: world, execution: execution)
        queue.async { parcel.empty() }
    }

    /// A finished world on its way to the reclaimer's thread. Unchecked: after the hand-off only
    /// that thread touches it, and the objects in it are not used by anyone again.
    private final class Parcel: @unchecked Sendable {
        private var world: ScenarioWorld?
        private var execution: ScenarioExecution?

        init(world: consuming ScenarioWorld, execution: consuming ScenarioExecution) {
            self.world = world
            self.execution = execution
        }

        func empty() {
            execution = nil
            world = nil
        }
    }
}
