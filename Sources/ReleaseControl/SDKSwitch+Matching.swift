extension SDKSwitch {
    /// No `sdks` list matches every device. Otherwise an entry must name the device's SDK
    /// (exactly, case-sensitive) and, when it has `below`, the device must send an
    /// `sdk_version` strictly below it.
    public func matches(_ device: Device) -> Bool {
        guard let sdks else { return true }
        guard let name = device.sdk else { return false }
        return sdks.contains { entry in
            guard entry.name == name else { return false }
            guard let below = entry.below else { return true }
            guard let version = device.sdkVersion else { return false }
            return version < below
        }
    }
}
