/// A ``PushSink`` whose gateways an admin call may move (`PUT /admin/push-gateways`): the
/// scenario runner hosts its own push-gateway stand-in and points a running server at it, so
/// pushes reach its devices the same way in process and against `serve`.
///
/// ```swift
/// if let sink = options.pushSink as? any RedirectablePushSink {
///     try sink.redirect(to: PushGatewayURLs(apns: "http://127.0.0.1:9443", fcm: "http://127.0.0.1:9443"))
/// }
/// ```
public protocol RedirectablePushSink: PushSink {
    /// Where pushes go now (nil: that provider's tokens are `no_gateway`).
    var gateways: PushGatewayURLs { get }
    /// From the next push on, deliver to `gateways`. Pushes still in flight to the old gateways fail.
    func redirect(to gateways: PushGatewayURLs) throws(PushRedirectRefusal)
}

/// The APNs and FCM gateway base URLs, as `--apns-gateway` and `--fcm-gateway` take them.
public struct PushGatewayURLs: Sendable, Equatable {
    public var apns: String?
    public var fcm: String?

    public init(apns: String? = nil, fcm: String? = nil) {
        self.apns = apns
        self.fcm = fcm
    }
}

/// Why a redirect was refused: the field (`apns` or `fcm`) and a message a person can act on.
public struct PushRedirectRefusal: Error, Sendable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
