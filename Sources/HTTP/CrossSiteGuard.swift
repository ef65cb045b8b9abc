/// Keeps a local tool's control endpoints to its own pages and tools, never another site in the
/// same browser. A page on any origin can send `fetch(…, {mode: "no-cors"})` with a `text/plain`
/// body to `127.0.0.1`, and a DNS-rebinding page can even read the answers (its name now points
/// at loopback). So every guarded request must:
/// - name this server in `Host`: an IP literal, `localhost`, or a name the operator allowed
///   (a rebinding page's `Host` is its own name);
/// - not come from another origin: an `Origin` other than the `Host`, `Origin: null`, or
///   `Sec-Fetch-Site` other than `same-origin`/`none` is refused;
/// and a write with a body must say `Content-Type: application/json`, a type no page can send to
/// another origin without a CORS preflight (which these servers never grant).
///
/// One definition for every surface that has one (serve's admin API, push-gateway's controls).
///
/// ```swift
/// let guard = CrossSiteGuard(surface: "the admin API", allowedHosts: ["lerix-mock"])
/// if let refusal = guard.refusal(for: request) { answer(refusal.status, refusal.detail, refusal.headers) }
/// ```
public struct CrossSiteGuard: Sendable {
    /// What the messages call the guarded endpoints ("the admin API").
    public var surface: String
    /// Host names answered besides IP literals and `localhost` (`--allow-host`), without port.
    public var allowedHosts: [String]

    /// Why a request was refused: 403 for a foreign host or origin, 415 for a write that is not JSON.
    public struct Refusal: Sendable, Equatable {
        public var status: Int
        public var detail: String
        public var headers: HTTPHeaders
    }

    public init(surface: String, allowedHosts: [String] = []) {
        self.surface = surface
        self.allowedHosts = allowedHosts
    }

    public func refusal(for request: HTTPRequest) -> Refusal? {
        let host = request.headers["Host"]
        if let host, !Self.isAllowedHost(host, allowed: allowedHosts) {
            return Refusal(
                status: 403,
                detail:
                    "\(surface) answers only to Host: an IP address, localhost, or a name given with --allow-host; "
                    + "not \"\(Self.printable(host))\" (a page that rebinds its name to this server must not drive it)",
                headers: HTTPHeaders()
            )
        }
        if let origin = request.headers["Origin"], !Self.isSameOrigin(origin, host: host) {
            return Refusal(
                status: 403,
                detail:
                    "\(surface) refuses requests from another origin (Origin: \(Self.printable(origin))): "
                    + "a page on another site must not drive it; call it from a tool, a test or its own pages",
                headers: HTTPHeaders()
            )
        }
        if let site = request.headers["Sec-Fetch-Site"]?.lowercased(), site != "same-origin", site != "none" {
            return Refusal(
                status: 403,
                detail:
                    "\(surface) refuses requests a browser marks Sec-Fetch-Site: \(Self.printable(site)): "
                    + "a page on another site must not drive it",
                headers: HTTPHeaders()
            )
        }
        if Self.isWrite(request.method), !request.body.isEmpty || request.headers["Content-Type"] != nil,
            !Self.isJSON(request.headers["Content-Type"])
        {
            // `Accept` is a request field (REDbot flags it in a response); the response fields that
            // name what a method takes are Accept-Post (W3C LDP, IANA-registered) and Accept-Patch
            // (RFC 5789). PUT and DELETE have none: the problem's detail says it.
            var headers = HTTPHeaders()
            switch request.method {
            case "POST": headers.set("Accept-Post", "application/json")
            case "PATCH": headers.set("Accept-Patch", "application/json")
            default: break
            }
            return Refusal(
                status: 415,
                detail:
                    "writes to \(surface) take Content-Type: application/json (curl: --json, or -H 'Content-Type: application/json'), not "
                    + (request.headers["Content-Type"].map { "\"\(Self.printable($0))\"" } ?? "none")
                    + "; other types are what pages on other sites can send",
                headers: headers
            )
        }
        return nil
    }

    static func isWrite(_ method: String) -> Bool {
        method != "GET" && method != "HEAD" && method != "OPTIONS"
    }

    /// `application/json`, parameters (`; charset=utf-8`) allowed, case-insensitive.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return trimmed(media).lowercased() == "application/json"
    }

    /// The host of a `Host` value (`name`, `name:port`, `[v6]:port`), lowercased; nil when it
    /// is not one.
    static func hostName(_ value: String) -> String? {
        let text = trimmed(Substring(value)).lowercased()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            return String(text[...close])
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2, !parts[1].allSatisfy(\.isASCIIDigit) { return nil }
        return String(name)
    }

    /// An IP literal names this machine's interface directly (a rebinding page has a name);
    /// `localhost` never leaves it; other names only when the operator allowed them.
    static func isAllowedHost(_ value: String, allowed: [String]) -> Bool {
        guard let name = hostName(value) else { return false }
        if name.hasPrefix("[") || name == "localhost" || isIPv4(name) { return true }
        let bare = name.hasSuffix(".") ? String(name.dropLast()) : name
        return allowed.contains { $0.lowercased() == bare || $0.lowercased() == name }
    }

    static func isIPv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy {
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0) ?? 256 <= 255
            }
    }

    /// `Origin: scheme://host[:port]` naming the same host and port as `Host`.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        let parts = origin.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard let host, parts.count == 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return false }
        let authority = parts[2]
        guard !authority.contains("/") else { return false }
        let scheme = parts[0].dropLast().lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        func normal(_ text: Substring) -> String {
            let lowered = trimmed(text).lowercased()
            return lowered.hasSuffix(defaultPort) ? String(lowered.dropLast(defaultPort.count)) : lowered
        }
        return normal(authority) == normal(Substring(host))
    }

    static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    /// At most 200 printable ASCII characters of a header value, for a message.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(200).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }
            )
        )
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
