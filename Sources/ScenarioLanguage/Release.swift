/// The release of lerix-mock, in this one place: `lerix-mock --version` prints it, JUnit and
/// HTML reports carry it, a scenario file's `requires_runner` is compared with it, and
/// `make test` tags the clone its version-pinned fixture depends on with it. Bump it with a
/// CHANGELOG.md entry (README, "Versions and compatibility").
///
/// ```swift
/// Release.version                                 // "0.2.0"
/// Release.current < ReleaseVersion("0.3.0")!      // true
/// ```
public enum Release {
    public static let version = "0.2.0"

    /// ``version``, parsed; it always parses (a test pins that).
    public static var current: ReleaseVersion {
        ReleaseVersion(version) ?? ReleaseVersion(major: 0, minor: 0, patch: 0)
    }
}

/// A release number, `MAJOR.MINOR.PATCH`, compared part by part.
public struct ReleaseVersion: Comparable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Exactly three whole numbers joined by dots (`0.3.0`); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(part) else { return nil }
            numbers.append(n)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (a: ReleaseVersion, b: ReleaseVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }
}
