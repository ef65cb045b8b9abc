import AdapterProtocol

extension AdapterHost {
    /// The `state` of device `id`, typed, for a caller in this process: what the `state` command
    /// answers (its ``DeviceState/fields``), refused for an unknown device in the same words,
    /// without formatting the fields the caller does not read.
    public func state(of id: String) -> Result<DeviceState, AdapterCommandError> {
        locked { table throws(CommandError) in DeviceState(of: try device(id, in: table)) }
    }
}
