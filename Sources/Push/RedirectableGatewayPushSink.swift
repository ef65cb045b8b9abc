import Clock
import HTTP
import MockServer
import Synchronization

/// The ``GatewayPushSink`` behind `serve`, re-pointable by `PUT /admin/push-gateways`: the
/// scenario runner hosts its own push-gateway stand-in and points the server at it. The flags'
/// TLS trust and provider credentials stay; only the gateway URLs change, and only to loopback
/// ones (an admin call must not be able to send pushes, and credentials, anywhere else).
///
/// ```swift
/// let sink = try RedirectableGatewayPushSink(configuration: .init(apnsGateway: nil, fcmGateway: nil))
/// try sink.redirect(to: PushGatewayURLs(apns: "http://127.0.0.1:24100", fcm: "http://127.0.0.1:24100"))
/// ```
public final class RedirectableGatewayPushSink: RedirectablePushSink {
    private struct Current: Sendable {
        var urls: PushGatewayURLs
        /// nil: no gateway at all, every token is `no_gateway`.
        var sink: GatewayPushSink?
    }

    private let template: GatewayPushSink.Configuration
    private let retryScheduler: any Scheduler
    private let current: Mutex<Current>

    /// Starts with the configuration's gateways (the `--apns-gateway`/`--fcm-gateway` flags).
    public init(
        configuration: GatewayPushSink.Configuration,
        retryScheduler: any Scheduler = SystemScheduler()
    ) throws(GatewayPushSinkError) {
        template = configuration
        self.retryScheduler = retryScheduler
        let hasGateway = configuration.apnsGateway != nil || configuration.fcmGateway != nil
        let sink = hasGateway ? try GatewayPushSink(configuration: configuration, retryScheduler: retryScheduler) : nil
        current = Mutex(
            Current(
                urls: PushGatewayURLs(
                    apns: configuration.apnsGateway?.description,
                    fcm: configuration.fcmGateway?.description
                ),
                sink: sink
            )
        )
    }

    public var gateways: PushGatewayURLs { current.withLock { $0.urls } }

    public func redirect(to urls: PushGatewayURLs) throws(PushRedirectRefusal) {
        var configuration = template
        configuration.apnsGateway = try Self.loopbackGateway(urls.apns, field: "apns")
        configuration.fcmGateway = try Self.loopbackGateway(urls.fcm, field: "fcm")
        var sink: GatewayPushSink?
        if configuration.apnsGateway != nil || configuration.fcmGateway != nil {
            do {
                sink = try GatewayPushSink(configuration: configuration, retryScheduler: retryScheduler)
            } catch {
                throw PushRedirectRefusal(
                    field: configuration.apnsGateway != nil ? "apns" : "fcm",
                    message: error.message
                )
            }
        }
        let shown = PushGatewayURLs(
            apns: configuration.apnsGateway?.description,
            fcm: configuration.fcmGateway?.description
        )
        let old = current.withLock { c -> GatewayPushSink? in
            defer { c = Current(urls: shown, sink: sink) }
            return c.sink
        }
        old?.shutdown()
    }

    public func deliver(_ push: OutgoingPush, completion: @escaping @Sendable ([TokenDelivery]) -> Void) {
        guard let sink = current.withLock({ $0.sink }) else {
            return NoGatewayPushSink().deliver(push, completion: completion)
        }
        sink.deliver(push, completion: completion)
    }

    public func shutdown() {
        current.withLock { $0.sink }?.shutdown()
    }

    /// `http(s)://` + `127.x.y.z`, `localhost` or `[::1]` + an optional port, nothing else (the
    /// OpenAPI document states the same pattern).
    static func loopbackGateway(_ text: String?, field: String) throws(PushRedirectRefusal) -> HTTPURL? {
        guard let text else { return nil }
        let refusal = PushRedirectRefusal(
            field: field,
            message:
                "'\(text)' is not a loopback gateway: an admin call may point pushes only at http:// or https:// on 127.0.0.0/8, localhost or [::1] (with a port, no path); use --\(field)-gateway for any other"
        )
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { throw refusal }
        let url: HTTPURL
        do {
            url = try GatewayPushSink.Configuration.gatewayURL(text)
        } catch {
            throw PushRedirectRefusal(field: field, message: error.description)
        }
        let authority = text.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
        let rest = text.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" }
        guard url.pathPrefix.isEmpty, rest.isEmpty || rest == "/", isLoopback(url.host),
            !authority.hasSuffix(":"), authority.split(separator: ":").last.map({ $0.first != "0" }) ?? true
        else { throw refusal }
        return url
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.dropFirst().allSatisfy { part in
            guard let n = Int(part), (0...255).contains(n), part.allSatisfy(\.isASCII) else { return false }
            return String(n) == part  // no leading zeros, no signs
        }
    }
}
