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
        guard platform == "ios" || platform == "macos" else { return "fcm-" + name }
        // Round r hashes on over `name#r`; each round's hash gives 16 digits. Written straight
        // into the string's storage, the name walked as one buffer: every device of a fleet
        // with push gets one (100,000 in the largest benchmark).
        var name = name
        return name.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: 64) { out in
                let digits: StaticString = "0123456789abcdef"
                var h = FNV1a64.offsetBasis
                var written = 0
                for round in 0..<4 {
                    h = FNV1a64.hash(bytes, continuing: h)
                    h = FNV1a64.hash(CollectionOfOne(UInt8(ascii: "#")), continuing: h)
                    h = FNV1a64.hash(CollectionOfOne(UInt8(ascii: "0") + UInt8(round)), continuing: h)
                    for shift in stride(from: 60, through: 0, by: -4) {
                        out[written] = digits.utf8Start[Int((h >> UInt64(shift)) & 15)]
                        written += 1
                    }
                }
                return written
            }
        }
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
