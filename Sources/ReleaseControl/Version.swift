/// An app or SDK version: dotted numbers of any length with semver pre-release order.
///
/// Missing numbers count as zero (`1.2 == 1.2.0`), numbers compare numerically
/// (`2.10.0 > 2.9.1`), a pre-release sorts before its release (`1.0.0-beta < 1.0.0`),
/// pre-release identifiers compare per semver 2.0 (numeric ones numerically, numeric
/// before alphanumeric, a shorter list first when all else ties) and build metadata
/// (`+…`) is ignored. Numbers may have any number of digits; leading zeros are
/// tolerated (`1.02 == 1.2`), since real apps ship such versions.
///
/// ```swift
/// Version("2.10.0")! > Version("2.9.1")!          // true
/// Version("1.0.0-alpha.1")! < Version("1.0.0-alpha.beta")!   // true
/// Version("v1.2")                                  // nil: not a version
/// ```
public struct Version: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The text as written, which is also how the answer and the admin API show it.
    public let text: String
    /// Release numbers as canonical digit strings (no leading zeros), trailing zeros removed.
    let release: [String]
    /// Pre-release identifiers; empty for a release.
    let preRelease: [Identifier]

    enum Identifier: Hashable, Sendable {
        /// Canonical digits, no leading zeros.
        case numeric(String)
        case alphanumeric(String)
    }

    /// Longest text accepted, so hostile input cannot cost much.
    public static let maximumLength = 256

    /// Parses `N(.N)*(-pre(.pre)*)?(+build(.build)*)?`; nil for anything else
    /// (empty text, white space, a `v` prefix, empty parts, characters outside `[0-9A-Za-z-]`).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Version.maximumLength else { return nil }
        var end = bytes.count
        if let plus = bytes.firstIndex(of: UInt8(ascii: "+")) {
            let build = bytes[(plus + 1)...]
            guard Version.validIdentifiers(build) else { return nil }
            end = plus
        }
        var releaseEnd = end
        var pre: [Identifier] = []
        if let dash = bytes[..<end].firstIndex(of: UInt8(ascii: "-")) {
            let part = bytes[(dash + 1)..<end]
            guard Version.validIdentifiers(part) else { return nil }
            for ident in part.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
                if ident.allSatisfy(Version.isDigit) {
                    pre.append(.numeric(Version.canonicalDigits(ident)))
                } else {
                    pre.append(.alphanumeric(String(decoding: ident, as: UTF8.self)))
                }
            }
            releaseEnd = dash
        }
        let releasePart = bytes[..<releaseEnd]
        var numbers: [String] = []
        for number in releasePart.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !number.isEmpty, number.allSatisfy(Version.isDigit) else { return nil }
            numbers.append(Version.canonicalDigits(number))
        }
        guard !numbers.isEmpty else { return nil }
        while numbers.count > 1, numbers.last == "0" { numbers.removeLast() }
        if numbers == ["0"] { numbers = [] }
        self.text = text
        self.release = numbers
        self.preRelease = pre
    }

    public var description: String { text }

    public static func == (lhs: Version, rhs: Version) -> Bool {
        lhs.release == rhs.release && lhs.preRelease == rhs.preRelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(release)
        hasher.combine(preRelease)
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        let count = max(lhs.release.count, rhs.release.count)
        for i in 0..<count {
            let a = i < lhs.release.count ? lhs.release[i] : "0"
            let b = i < rhs.release.count ? rhs.release[i] : "0"
            if a != b { return Version.numericLess(a, b) }
        }
        // Same release numbers: a pre-release sorts before the release itself.
        switch (lhs.preRelease.isEmpty, rhs.preRelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): break
        }
        for (a, b) in zip(lhs.preRelease, rhs.preRelease) where a != b {
            switch (a, b) {
            case (.numeric(let x), .numeric(let y)): return Version.numericLess(x, y)
            case (.numeric, .alphanumeric): return true
            case (.alphanumeric, .numeric): return false
            case (.alphanumeric(let x), .alphanumeric(let y)):
                return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            }
        }
        return lhs.preRelease.count < rhs.preRelease.count
    }

    // MARK: - Helpers

    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    static func isIdentifierByte(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == UInt8(ascii: "-")
    }

    /// Dot-separated, each identifier non-empty and made of `[0-9A-Za-z-]`.
    static func validIdentifiers(_ part: ArraySlice<UInt8>) -> Bool {
        guard !part.isEmpty else { return false }
        for ident in part.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !ident.isEmpty, ident.allSatisfy(isIdentifierByte) else { return false }
        }
        return true
    }

    static func canonicalDigits(_ digits: ArraySlice<UInt8>) -> String {
        let trimmed = digits.drop { $0 == UInt8(ascii: "0") }
        return trimmed.isEmpty ? "0" : String(decoding: trimmed, as: UTF8.self)
    }

    /// Compares canonical digit strings of any length as numbers.
    static func numericLess(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        if x.count != y.count { return x.count < y.count }
        return x.lexicographicallyPrecedes(y)
    }
}
