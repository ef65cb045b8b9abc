extension UpdateRule {
    /// The platform is listed (or no list) and the device has a version strictly below
    /// `below`. A device without a version matches no update rule.
    public func matches(_ device: Device) -> Bool {
        guard Platform.list(platforms, contains: device.platform), let version = device.version else { return false }
        return version < below
    }
}
