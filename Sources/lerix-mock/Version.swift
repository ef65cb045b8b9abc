import AdapterProtocol
import ScenarioLanguage
import ScenarioRunner

/// `lerix-mock --version`: the release (``Release/version``, its one place) and the adapter
/// protocol it speaks.
enum Version {
    /// `lerix-mock 0.2.0 (linux-x86_64; adapter protocol 1)`: the OS and architecture it was
    /// built for, for bug reports.
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
        let notes = (platform.isEmpty ? [] : [platform]) + ["adapter protocol \(AdapterProtocolVersion.current)"]
        return "lerix-mock \(Release.version) (\(notes.joined(separator: "; ")))"
    }
}

extension Version {
    /// What results files name as the tool that wrote them.
    static var tool: String { "lerix-mock \(Release.version)" }
}
