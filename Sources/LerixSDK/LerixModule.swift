/// A part of the Lerix SDK that an SDK switch can pause.
///
/// Every module but ``pushTokenRegistration`` queues items and sends them to
/// `POST /v1/projects/{project}/ingest/{module}`.
public enum LerixModule: String, CaseIterable, Sendable, Comparable {
    case errors, analytics, tracing, feedback, surveys
    case pushTokenRegistration = "push_token_registration"

    /// The modules that send items to the ingest endpoint.
    public static let ingestModules: [LerixModule] = [.errors, .analytics, .tracing, .feedback, .surveys]

    /// Reads a switch's module name; `all` stands for every module. Unknown names give nothing.
    public static func parse(switchModule name: String) -> [LerixModule] {
        if name == "all" { return allCases }
        return LerixModule(rawValue: name).map { [$0] } ?? []
    }

    public static func < (lhs: LerixModule, rhs: LerixModule) -> Bool {
        let order = allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
