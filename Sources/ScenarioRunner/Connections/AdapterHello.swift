import AdapterProtocol
import JSON

/// An adapter's `hello` answer, read within bounds: every size in it comes from the adapter,
/// so a name, version or capability list past what the protocol could need is refused before
/// anything is printed, validated or looked up (a 5 MiB name, 16,000 capabilities).
///
/// ```swift
/// let hello = try AdapterHello(answer)    // throws AdapterFailure when a bound is passed
/// hello.displayName                       // "lerix-web-sdk 1.0.0"
/// hello.capabilities.contains("push")
/// ```
struct AdapterHello: Sendable {
    /// Most bytes in `name` and in `version`.
    static let maximumNameBytes = 256
    /// Most entries in `capabilities` (the vocabulary has 13) and bytes in each.
    static let maximumCapabilities = 64
    static let maximumCapabilityBytes = 64

    var name: String?
    var version: String?
    var capabilities: Set<String>

    init(_ answer: JSON) throws(AdapterFailure) {
        for field in ["name", "version"] {
            if let text = answer[field]?.stringValue, text.utf8.count > Self.maximumNameBytes {
                throw AdapterFailure(
                    "the adapter's hello has a `\(field)` of \(text.utf8.count) bytes; at most \(Self.maximumNameBytes)"
                )
            }
        }
        name = answer["name"]?.stringValue
        version = answer["version"]?.stringValue
        let listed = answer["capabilities"]?.arrayValue ?? []
        guard listed.count <= Self.maximumCapabilities else {
            throw AdapterFailure(
                "the adapter's hello lists \(listed.count) capabilities; at most \(Self.maximumCapabilities) "
                    + "(docs/ADAPTER.md lists the vocabulary)"
            )
        }
        var capabilities = Set<String>()
        for item in listed {
            guard let text = item.stringValue else { continue }
            guard text.utf8.count <= Self.maximumCapabilityBytes else {
                throw AdapterFailure(
                    "the adapter's hello lists a capability of \(text.utf8.count) bytes; at most \(Self.maximumCapabilityBytes)"
                )
            }
            capabilities.insert(text)
        }
        self.capabilities = capabilities
        // The adapter protocol versions it speaks, when it says (ADAPTER.md, "Versions").
        if let mismatch = AdapterProtocolVersion.mismatch(inHello: answer) { throw AdapterFailure(mismatch) }
    }

    /// `name version`, for reports and the terminal.
    var displayName: String { [name, version].compactMap { $0 }.joined(separator: " ") }
}
