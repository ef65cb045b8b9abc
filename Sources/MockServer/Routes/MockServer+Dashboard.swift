import HTTP

extension MockServer {
    /// The dashboard's files, compiled into the binary (`Dashboard/` in this target), so
    /// `/ui` works from any copy of the executable, offline.
    static let dashboardAssets: [String: (type: String, bytes: [UInt8])] = [
        "index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "dashboard.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_js),
        "dashboard.css": ("text/css; charset=utf-8", PackageResources.dashboard_css),
    ]

    /// `GET /ui` and `GET /ui/<asset>`. The page talks only to this server: its policy
    /// forbids every other origin, so nothing can come from a CDN.
    func dashboardResponse(asset: String) -> HTTPResponse {
        guard let file = Self.dashboardAssets[asset] else {
            return Problem(
                status: 404,
                title: "Unknown asset",
                detail:
                    "the dashboard has no file \"\(asset)\"; it has \(Self.dashboardAssets.keys.sorted().joined(separator: ", "))"
            ).response
        }
        var response = HTTPResponse(status: 200, body: file.bytes)
        response.headers.set("Content-Type", file.type)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        return document(response)
    }
}
