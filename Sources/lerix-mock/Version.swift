/// The release of this binary, printed by `lerix-mock --version`. Bump it with each release.
enum Version {
    static let current = "0.1.0"
    /// `lerix-mock 0.1.0`, plus the OS and architecture it was built for, for bug reports.
    static var line: String {
        var platform = ""
        #if os(Linux)
        platform = "linux"
        #elseif os(macOS)
        platform = "macos"
        #endif
        #if arch(x86_64)
        platform += "-x86_64"
        #elseif arch(arm64)
        platform += "-arm64"
        #endif
        return "lerix-mock \(current)" + (platform.isEmpty ? "" : " (\(platform))")
    }
}

extension Version {
    /// What results files name as the tool that wrote them.
    static var tool: String { "lerix-mock \(current)" }
}
