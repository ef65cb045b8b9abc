internal import JSON

extension ReleaseControlMachine {
    /// `GET …/release-control` with the device's attributes and, when the saved parts all came
    /// from one answer, its ETag. Made again only when the ETag changed: most checks of a
    /// device send the same request as its last one.
    mutating func checkRequest() -> TransportRequest {
        if let last = lastCheckRequest, last.etag == saved.etag { return last.request }
        let etag = saved.etag
        let url = checkURL
        // The instance before this one (a fleet's devices of a class) mostly made this very
        // request: shared, its strings and array are one warm copy, not one a device.
        let request = Self.lastBuiltCheckRequest.value(for: CheckRequestKey(etag: etag, url: url)) { key in
            var headers: [(String, String)] = [("Accept", "application/json")]
            if let etag = key.etag { headers.append(("If-None-Match", etag)) }
            return TransportRequest(method: "GET", url: key.url, headers: headers)
        }
        lastCheckRequest = CheckRequest(etag: etag, request: request)
        return request
    }

    /// The check request built last by any instance, shared by the next one that needs the same.
    private static let lastBuiltCheckRequest = LastMade<CheckRequestKey, TransportRequest>()

    /// What a check request is made of.
    private struct CheckRequestKey: Equatable {
        let etag: String?
        let url: String
    }

    /// A check request kept for reuse, with the ETag it was made for (a struct, not a tuple:
    /// Swift copies tuples through a generic path, and this one is read on every check).
    struct CheckRequest {
        let etag: String?
        let request: TransportRequest
    }

    /// The check URL for `configuration`: the one the last instance built when they ask for the
    /// same (a fleet's devices of a class do: one string shared, not one a device, and two
    /// devices' URLs then compare equal at their identity).
    static func checkURL(for configuration: LerixConfiguration) -> String {
        lastBuiltCheckURL.value(for: CheckURLKey(configuration)) { _ in buildCheckURL(for: configuration) }
    }

    /// What a check URL is made of.
    private struct CheckURLKey: Equatable {
        let base: String, project: String, platform: Platform
        let appVersion: String?, build: String?, sdkName: String?, sdkVersion: String?

        init(_ configuration: LerixConfiguration) {
            base = configuration.base
            project = configuration.project
            platform = configuration.platform
            appVersion = configuration.appVersion
            build = configuration.build
            sdkName = configuration.sdkName
            sdkVersion = configuration.sdkVersion
        }
    }

    private static let lastBuiltCheckURL = LastMade<CheckURLKey, String>()

    /// Written as bytes into one buffer: every SDK instance (a fleet makes one per launch) needs it.
    static func buildCheckURL(for configuration: LerixConfiguration) -> String {
        var url: [UInt8] = []
        url.reserveCapacity(160)
        url.append(contentsOf: configuration.base.utf8)
        url.append(contentsOf: "/v1/projects/".utf8)
        appendPercentEncoded(configuration.project, to: &url)
        url.append(contentsOf: "/release-control".utf8)
        var separator = UInt8(ascii: "?")
        func parameter(_ name: StaticString, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            url.append(separator)
            url.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            url.append(UInt8(ascii: "="))
            appendPercentEncoded(value, to: &url)
            separator = UInt8(ascii: "&")
        }
        parameter("platform", configuration.platform.rawValue)
        parameter("version", configuration.appVersion)
        parameter("build", configuration.build)
        parameter("sdk", configuration.sdkName)
        parameter("sdk_version", configuration.sdkVersion)
        return String(decoding: url, as: UTF8.self)
    }

    func ingestRequest(_ module: LerixModule, _ items: ArraySlice<JSON>) -> TransportRequest {
        TransportRequest(
            method: "POST",
            url: projectURL(then: "/ingest/", module.rawValue),
            headers: [("Content-Type", "application/json")],
            body: JSON.array(Array(items)).serialized()
        )
    }

    /// The URL and the body are each written into one buffer: every launch of a pushable device
    /// registers its token (joining Strings cost a buffer and a copy a part).
    func pushTokenRequest(_ token: String) -> TransportRequest {
        var body: [UInt8] = []
        body.reserveCapacity(32)
        body.append(contentsOf: #"{"platform":"#.utf8)
        JSON.writeString(configuration.platform.rawValue, into: &body)
        body.append(UInt8(ascii: "}"))
        return TransportRequest(
            method: "PUT",
            url: projectURL(then: "/push-tokens/", token),
            headers: [("Content-Type", "application/json")],
            body: body
        )
    }

    /// `base/v1/projects/<project><path><name>`, the project and the name percent-encoded.
    private func projectURL(then path: StaticString, _ name: String) -> String {
        var url: [UInt8] = []
        url.reserveCapacity(
            configuration.base.utf8.count + 3 * (configuration.project.utf8.count + name.utf8.count) + 32
        )
        url.append(contentsOf: configuration.base.utf8)
        url.append(contentsOf: "/v1/projects/".utf8)
        Self.appendPercentEncoded(configuration.project, to: &url)
        url.append(contentsOf: UnsafeBufferPointer(start: path.utf8Start, count: path.utf8CodeUnitCount))
        Self.appendPercentEncoded(name, to: &url)
        return String(decoding: url, as: UTF8.self)
    }

    /// Appends `text` with RFC 3986 percent-encoding of everything but the unreserved characters.
    /// Walked as one buffer (a String's index steps cost more than the encoding); unreserved
    /// text is copied whole.
    private static func appendPercentEncoded(_ text: String, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789ABCDEF"
        var text = text
        text.withUTF8 { bytes in
            if bytes.allSatisfy(isUnreserved) { return out.append(contentsOf: bytes) }
            for b in bytes {
                if isUnreserved(b) {
                    out.append(b)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(hex.utf8Start[Int(b >> 4)])
                    out.append(hex.utf8Start[Int(b & 15)])
                }
            }
        }
    }

    private static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
