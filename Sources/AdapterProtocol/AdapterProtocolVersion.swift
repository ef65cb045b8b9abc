import JSON

/// The adapter protocol's own version (docs/ADAPTER.md, "Versions"), apart from the release's:
/// the runner says which it speaks in `hello` (`"protocol": 1`), an adapter may answer the ones it
/// speaks (`"protocols": [1]`), and a mismatch is an error naming both. It goes up only for a
/// change that would break an adapter written for the previous one; additions ride on
/// capabilities and keep it.
///
/// ```swift
/// AdapterProtocolVersion.current                                      // 1
/// AdapterProtocolVersion.mismatch(runner: 2, adapter: [1], adapterName: "lerix-web-sdk 1.0.0")
/// // "the adapter lerix-web-sdk 1.0.0 speaks adapter protocol 1; the runner speaks 2"
/// ```
public enum AdapterProtocolVersion {
    /// What this runner sends and this package's Swift adapter speaks.
    public static let current = 1
    /// Every version the Swift adapter (`lerix-mock adapter`, LerixMock) answers to.
    public static let supported = [1]

    /// The one wording for both sides: the runner when an adapter's `protocols` lacks its
    /// version, an adapter when `hello` asks for one it does not speak.
    public static func mismatch(runner: Int, adapter: [Int], adapterName: String) -> String {
        let spoken = adapter.map(String.init).joined(separator: ", ")
        let name = adapterName.isEmpty ? "" : " " + adapterName
        return "the adapter\(name) speaks adapter protocol \(spoken); the runner speaks \(runner)"
    }

    /// The runner's reading of an adapter's `hello` answer: nil when the adapter speaks
    /// ``current`` or does not say (an adapter from before the versions), else why not.
    public static func mismatch(inHello answer: JSON) -> String? {
        guard let listed = answer["protocols"] else { return nil }
        let items = listed.arrayValue ?? []
        let versions = items.compactMap(\.intValue)
        guard !versions.isEmpty, versions.count == items.count, versions.count <= 16 else {
            return "the adapter's hello answers `protocols` that is not a list of 1 to 16 whole numbers"
        }
        if versions.contains(current) { return nil }
        let name = [answer["name"]?.stringValue, answer["version"]?.stringValue].compactMap { $0 }
        return mismatch(runner: current, adapter: versions, adapterName: name.joined(separator: " "))
    }
}
