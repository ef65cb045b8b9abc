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
        let platform: Platform
        let version: String?
        let sdk: String?
        let sdkVersion: String?
        /// Hashed once: a key read from ``CheckQueryMemo`` is looked up in the answer cache on
        /// every check, and hashing its three texts cost more than the lookup.
        private let hash: Int

        init(platform: Platform, version: String?, sdk: String?, sdkVersion: String?) {
            self.platform = platform
            self.version = version
            self.sdk = sdk
            self.sdkVersion = sdkVersion
            var hasher = Hasher()
            hasher.combine(platform)
            hasher.combine(version)
            hasher.combine(sdk)
            hasher.combine(sdkVersion)
            hash = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.platform == rhs.platform && lhs.version == rhs.version && lhs.sdk == rhs.sdk
                && lhs.sdkVersion == rhs.sdkVersion
        }

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

    init(
        platform: String? = nil,
        version: String? = nil,
        build: String? = nil,
        sdk: String? = nil,
        sdkVersion: String? = nil
    ) {
        self.platform = platform
        self.version = version
        self.build = build
        self.sdk = sdk
        self.sdkVersion = sdkVersion
    }

    /// Reads the target's query in one pass over its bytes; only a query with `%` or `+` goes
    /// through the general percent-decoding of ``HTTPRequest/queryItems``.
    init(_ request: HTTPRequest) {
        self.init()
        var target = request.target
        let decoded = target.withUTF8 { bytes -> Bool in
            let count = bytes.count
            var i = 0
            while i < count, bytes[i] != UInt8(ascii: "?") { i += 1 }
            i += 1
            let query = i
            while i < count {
                if bytes[i] == UInt8(ascii: "%") || bytes[i] == UInt8(ascii: "+") { return false }
                i += 1
            }
            i = query
            while i < count {
                var end = i
                var eq = -1
                while end < count, bytes[end] != UInt8(ascii: "&") {
                    if eq < 0, bytes[end] == UInt8(ascii: "=") { eq = end }
                    end += 1
                }
                if eq > i, eq + 1 < end, let field = Field(bytes, from: i, to: eq) {
                    set(field, String(decoding: UnsafeBufferPointer(rebasing: bytes[(eq + 1)..<end]), as: UTF8.self))
                }
                i = end + 1
            }
            return true
        }
        if !decoded {
            for item in request.queryItems { set(item.name, item.value) }
        }
    }

    /// The query parameters a check reads.
    private enum Field {
        case platform, version, build, sdk, sdkVersion

        /// The parameter named by `bytes[from..<to]`, compared byte by byte (no String made).
        init?(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) {
            func equals(_ text: StaticString) -> Bool {
                guard to - from == text.utf8CodeUnitCount else { return false }
                let name = text.utf8Start
                for k in 0..<(to - from) where bytes[from + k] != name[k] { return false }
                return true
            }
            switch to - from {
            case 8:
                if equals("platform") {
                    self = .platform
                    return
                }
            case 7:
                if equals("version") {
                    self = .version
                    return
                }
            case 5:
                if equals("build") {
                    self = .build
                    return
                }
            case 3:
                if equals("sdk") {
                    self = .sdk
                    return
                }
            case 11:
                if equals("sdk_version") {
                    self = .sdkVersion
                    return
                }
            default: break
            }
            return nil
        }

        init?(_ name: String) {
            var name = name
            guard let field = name.withUTF8({ Field($0, from: 0, to: $0.count) }) else { return nil }
            self = field
        }
    }

    private mutating func set(_ name: String, _ value: String) {
        if let field = Field(name) { set(field, value) }
    }

    /// The first non-empty value of a parameter wins.
    private mutating func set(_ field: Field, _ value: String) {
        guard !value.isEmpty else { return }
        switch field {
        case .platform: if platform == nil { platform = value }
        case .version: if version == nil { version = value }
        case .build: if build == nil { build = value }
        case .sdk: if sdk == nil { sdk = value }
        case .sdkVersion: if sdkVersion == nil { sdkVersion = value }
        }
    }

    /// The journal's shared value of this query's device fields (made once per request target).
    var journalDevice: RequestJournal.Entry.Device {
        RequestJournal.Entry.Device(
            .init(platform: platform, version: version, build: build, sdk: sdk, sdkVersion: sdkVersion)
        )
    }
}
