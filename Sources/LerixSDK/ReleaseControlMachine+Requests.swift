internal import JSON

extension ReleaseControlMachine {
    /// `GET …/release-control` with the device's attributes and, when the saved parts all came
    /// from one answer, its ETag. Made again only when the ETag changed: most checks of a
    /// device send the same request as its last one.
    mutating func checkRequest() -> TransportRequest {
        if let last = lastCheckRequest, last.etag == saved.etag { return last.request }
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let etag = saved.etag { headers.append(("If-None-Match", etag)) }
        let request = TransportRequest(method: "GET", url: checkURL, headers: headers)
        lastCheckRequest = (saved.etag, request)
        return request
    }

    static func checkURL(for configuration: LerixConfiguration) -> String {
        var url = projectURL(configuration) + "/release-control"
        var separator = "?"
        for (name, value) in [("platform", configuration.platform.rawValue), ("version", configuration.appVersion),
                              ("build", configuration.build), ("sdk", configuration.sdkName),
                              ("sdk_version", configuration.sdkVersion)] {
            guard let value, !value.isEmpty else { continue }
            url += separator + name + "=" + Self.percentEncoded(value)
            separator = "&"
        }
        return url
    }

    func ingestRequest(_ module: LerixModule, _ items: ArraySlice<JSON>) -> TransportRequest {
        TransportRequest(
            method: "POST", url: projectURL() + "/ingest/" + module.rawValue,
            headers: [("Content-Type", "application/json")], body: JSON.array(Array(items)).serialized())
    }

    func pushTokenRequest(_ token: String) -> TransportRequest {
        TransportRequest(
            method: "PUT", url: projectURL() + "/push-tokens/" + Self.percentEncoded(token),
            headers: [("Content-Type", "application/json")],
            body: JSON.object([("platform", .string(configuration.platform.rawValue))]).serialized())
    }

    private func projectURL() -> String { Self.projectURL(configuration) }

    private static func projectURL(_ configuration: LerixConfiguration) -> String {
        configuration.base + "/v1/projects/" + Self.percentEncoded(configuration.project)
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        // Versions, platforms and project keys are usually unreserved already: nothing to copy.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            if isUnreserved(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
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
