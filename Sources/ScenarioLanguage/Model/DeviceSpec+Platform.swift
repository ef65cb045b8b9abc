import ReleaseControl

/// What follows from a device's platform when the scenario does not say: the SDK a native app
/// uses and the push token format of its provider. Decided here once, for parsing and for the
/// runner putting a device with platform choices on the platform the adapter emulates.
extension DeviceSpec {
    /// The SDK a native app of each platform uses unless `sdk` says otherwise.
    static let platformSDKs = ["ios": "swift", "macos": "swift", "android": "kotlin", "web": "js"]

    package static func defaultSDK(platform: String, flavor: String) -> String {
        flavor == "flutter" ? "flutter" : platformSDKs[platform] ?? "swift"
    }

    /// A token shaped like the provider's: 64 hex digits for APNs (derived from the name, so
    /// runs repeat), `fcm-<name>` for FCM.
    package static func defaultToken(name: String, platform: String) -> String {
        guard platform == "ios" || platform == "macos" else { return "fcm-\(name)" }
        var hex = ""
        var h = FNV1a64.offsetBasis
        for round in 0..<4 {
            h = FNV1a64.hash((name + "#\(round)").utf8, continuing: h)
            let digits = String(h, radix: 16)
            hex += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex
    }

    /// This device on `platform`: its SDK and default push token follow, unless written.
    func on(platform: String) -> DeviceSpec {
        var d = self
        d.platform = platform
        if !sdkWritten { d.sdk = Self.defaultSDK(platform: platform, flavor: flavor) }
        if defaultPushToken { d.pushToken = Self.defaultToken(name: name, platform: platform) }
        return d
    }
}
