import MockServer
import Persistence
import ProviderAuth
import Push
import TLS

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

    /// `--tls-ca` and the provider credentials, as given (files are read when the sink is made).
    struct PushAuth {
        var trustedCA: String?
        var apnsKey: String?
        var apnsKeyID: String?
        var apnsTeamID: String?
        var fcmCredentials: String?

        init() {}

        init(_ parsed: ArgumentParser.Parsed) throws(ArgumentParser.Failure) {
            trustedCA = parsed.value("--tls-ca")
            apnsKey = parsed.value("--apns-auth-key")
            apnsKeyID = parsed.value("--apns-key-id")
            apnsTeamID = parsed.value("--apns-team-id")
            fcmCredentials = parsed.value("--fcm-credentials")
            let apnsFlags = [apnsKey, apnsKeyID, apnsTeamID].compactMap { $0 }.count
            if apnsFlags != 0 && apnsFlags != 3 {
                throw ArgumentParser.Failure(
                    description: "APNs token auth needs all three of --apns-auth-key, --apns-key-id and --apns-team-id"
                )
            }
            if apnsKey != nil && parsed.value("--apns-gateway") == nil {
                throw ArgumentParser.Failure(description: "--apns-auth-key needs --apns-gateway (where to send)")
            }
            if fcmCredentials != nil && parsed.value("--fcm-gateway") == nil {
                throw ArgumentParser.Failure(description: "--fcm-credentials needs --fcm-gateway (where to send)")
            }
        }
    }

    /// Always redirectable (`PUT /admin/push-gateways`), so the scenario runner can point a running
    /// server at its own push-gateway stand-in; without gateway flags every token is `no_gateway`.
    static func pushSink(
        apns: String?,
        fcm: String?,
        auth: PushAuth = PushAuth(),
        log: @escaping @Sendable (String) -> Void
    ) throws -> any PushSink {
        var configuration: GatewayPushSink.Configuration
        do {
            configuration = try .init(apnsGateway: apns, fcmGateway: fcm)
        } catch {
            throw Unavailable(description: "--apns-gateway/--fcm-gateway: \(error)")
        }
        if let ca = auth.trustedCA { configuration.tls = try TLSContext.client(trustingAlso: ca, alpn: ["h2"]) }
        if let key = auth.apnsKey, let keyID = auth.apnsKeyID, let teamID = auth.apnsTeamID {
            configuration.apnsAuth = try APNsProviderToken(keyFile: key, keyID: keyID, teamID: teamID)
        }
        if let credentials = auth.fcmCredentials {
            configuration.fcmAuth = FCMAccessToken(account: try ServiceAccount(file: credentials))
        }
        do {
            return try RedirectableGatewayPushSink(configuration: configuration)
        } catch {
            throw Unavailable(description: "--apns-gateway/--fcm-gateway: \(error)")
        }
    }
}
