/// A step did not do what the scenario says: the message reads "expected …, seen …".
struct StepFailure: Error, CustomStringConvertible {
    var message: String
    /// Devices whose recent HTTP exchanges explain the failure.
    var devices: [String]
    init(_ message: String, devices: [String] = []) {
        self.message = message
        self.devices = devices
    }
    var description: String { message }
}
