import MockServer
import Persistence
import Push

/// Chooses the store and push sink behind `serve`'s flags. Kept apart from flag parsing so
/// each backend's construction (and its error message) stays in one place.
enum ServeWiring {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The chosen store, its reset seed, and what to do with it once the server has stopped.
    struct Store {
        let store: any StateStore
        let seed: StateSnapshot
        /// Folds SQLite's write-ahead log back into the file, so a later read-only open finds it whole.
        let close: @Sendable () -> Void
    }

    /// The store and the seed `POST /admin/reset` returns to. An existing `--state` file keeps
    /// the seed it was created with; a new one is created from `seed` (the `--config` contents).
    static func store(statePath: String?, seed: StateSnapshot) throws -> Store {
        guard let statePath else { return Store(store: MemoryStateStore(keepsEvents: false), seed: seed, close: {}) }
        let store = try SQLiteStateStore.open(path: statePath, seed: seed)
        return Store(store: store, seed: store.seed, close: { store.close() })
    }

    static func pushSink(apns: String?, fcm: String?, log: @escaping @Sendable (String) -> Void) throws -> any PushSink {
        guard apns != nil || fcm != nil else { return NoGatewayPushSink() }
        do {
            return try GatewayPushSink(configuration: .init(apnsGateway: apns, fcmGateway: fcm))
        } catch {
            throw Unavailable(description: "--apns-gateway/--fcm-gateway: \(error)")
        }
    }
}
