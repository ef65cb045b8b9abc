/// A part of the Lerix SDK that an SDK switch can pause.
///
/// Every module but ``pushTokenRegistration`` queues items and sends them to
/// `POST /v1/projects/{project}/ingest/{module}`.
public enum LerixModule: String, CaseIterable, Sendable, Comparable {
    /// Error reports.
    case errors
    /// Analytics events.
    case analytics
    /// Performance traces.
    case tracing
    /// User feedback.
    case feedback
    /// Survey answers.
    case surveys
    /// Registering this device's Lerix push token (``LerixConfiguration/pushToken``).
    case pushTokenRegistration = "push_token_registration"

    /// The modules that send items to the ingest endpoint.
    public static let ingestModules: [LerixModule] = [.errors, .analytics, .tracing, .feedback, .surveys]

    /// Reads a switch's module name; `all` stands for every module. Unknown names give nothing.
    package static func parse(switchModule name: String) -> [LerixModule] {
        if name == "all" { return allCases }
        return LerixModule(rawValue: name).map { [$0] } ?? []
    }

    /// In declaration order (the order `pausedModules` lists them).
    public static func < (lhs: LerixModule, rhs: LerixModule) -> Bool {
        let order = allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
