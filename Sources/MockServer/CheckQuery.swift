import Clock
import HTTP
import ReleaseControl

/// The check's query as the device sent it: kept raw for the journal and the answer cache's
/// key, so a cache hit parses no version. Empty values count as absent; the first of a
/// repeated parameter wins.
struct CheckQuery: Sendable {
    /// A device class as sent: two keys that differ only in spelling (`2.3` and `2.3.0`)
    /// cache separately, which costs a little memory and never a wrong answer.
    struct Key: Hashable, Sendable {
        var platform: Platform
        var version: String?
        var sdk: String?
        var sdkVersion: String?

        /// The device as evaluation sees it (the build never matters).
        var device: Device {
            Device(platform: platform, version: version, build: nil, sdk: sdk, sdkVersion: sdkVersion)
        }
    }

    var platform: String?
    var version: String?
    var build: String?
    var sdk: String?
    var sdkVersion: String?

    init(platform: String? = nil, version: String? = nil, build: String? = nil, sdk: String? = nil, sdkVersion: String? = nil) {
        self.platform = platform
        self.version = version
        self.build = build
        self.sdk = sdk
        self.sdkVersion = sdkVersion
    }

    /// Reads the target's query in one pass; only a query with `%` or `+` goes through the
    /// general percent-decoding of ``HTTPRequest/queryItems``.
    init(_ request: HTTPRequest) {
        self.init()
        let bytes = Array(request.target.utf8)
        guard var i = bytes.firstIndex(of: UInt8(ascii: "?")) else { return }
        i += 1
        for b in bytes[i...] where b == UInt8(ascii: "%") || b == UInt8(ascii: "+") {
            for item in request.queryItems { set(item.name, item.value) }
            return
        }
        while i < bytes.count {
            var end = i
            var eq = -1
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                if eq < 0, bytes[end] == UInt8(ascii: "=") { eq = end }
                end += 1
            }
            if eq > i, eq + 1 < end {
                let name = String(decoding: bytes[i..<eq], as: UTF8.self)
                switch name {
                case "platform", "version", "build", "sdk", "sdk_version":
                    set(name, String(decoding: bytes[(eq + 1)..<end], as: UTF8.self))
                default: break
                }
            }
            i = end + 1
        }
    }

    private mutating func set(_ name: String, _ value: String) {
        guard !value.isEmpty else { return }
        switch name {
        case "platform": if platform == nil { platform = value }
        case "version": if version == nil { version = value }
        case "build": if build == nil { build = value }
        case "sdk": if sdk == nil { sdk = value }
        case "sdk_version": if sdkVersion == nil { sdkVersion = value }
        default: break
        }
    }

    func entry(at: Instant, project: String, status: Int, etag: String? = nil, lifetime: Int? = nil,
               fault: String? = nil) -> RequestJournal.Entry {
        RequestJournal.Entry(at: at, project: project, platform: platform, version: version, build: build,
                             sdk: sdk, sdkVersion: sdkVersion, status: status, etag: etag, lifetime: lifetime, fault: fault)
    }
}
