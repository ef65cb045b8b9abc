import MockServer

/// Chooses the store and push sink behind `serve`'s flags. Kept apart from flag parsing so
/// each backend's construction (and its error message) stays in one place.
enum ServeWiring {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static func store(statePath: String?) throws -> any StateStore {
        guard let statePath else { return MemoryStateStore(keepsEvents: false) }
        throw Unavailable(description: "--state \(statePath): durable state is not built into this binary yet")
    }

    static func pushSink(apns: String?, fcm: String?, log: @escaping @Sendable (String) -> Void) throws -> any PushSink {
        guard apns != nil || fcm != nil else { return NoGatewayPushSink() }
        throw Unavailable(description: "--apns-gateway/--fcm-gateway: push delivery is not built into this binary yet")
    }
}
