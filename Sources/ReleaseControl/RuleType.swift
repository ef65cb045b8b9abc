/// The five kinds of release-control rule, named as the wire's `type` field names them.
public enum RuleType: String, CaseIterable, Sendable, Hashable {
    case requiredUpdate = "required_update"
    case optionalUpdate = "optional_update"
    case recommendedUpdate = "recommended_update"
    case maintenance
    case sdkSwitch = "sdk_switch"

    /// The type names as the wire writes them, for error messages.
    public static var listText: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
