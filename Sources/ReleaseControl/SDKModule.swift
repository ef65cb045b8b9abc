/// A Lerix SDK module that an `sdk_switch` rule can pause; `all` pauses every one.
public enum SDKModule: String, CaseIterable, Sendable, Hashable {
    case errors, analytics, tracing, feedback, surveys
    case pushTokenRegistration = "push_token_registration"
    case all

    /// The modules that send items to `POST …/ingest/{module}`, in the contract's order.
    public static let ingestModules: [SDKModule] = [.errors, .analytics, .tracing, .feedback, .surveys]

    /// The module names as the wire writes them, for error messages.
    public static var listText: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
