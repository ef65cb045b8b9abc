import HTTP

extension MockServer {
    /// `GET /`: what a person with curl needs to get going.
    func indexResponse() -> HTTPResponse {
        var text = "lerix-mock: a mock of the Lerix release-control backend\n"
        let width = (router.routes.map { $0.method.count + 1 + $0.pattern.count }.max() ?? 0) + 2
        var lastGroup = ""
        let ordered = router.routes.enumerated().sorted {
            (group($0.element), $0.offset) < (group($1.element), $1.offset)
        }
        for route in ordered.map(\.element) {
            let g = group(route)
            if g != lastGroup {
                text += "\n" + g.dropFirst(2) + "\n"
                lastGroup = g
            }
            let left = route.method + " " + route.pattern
            text +=
                "  " + left + String(repeating: " ", count: max(1, width - left.count)) + route.endpoint.doc.summary
                + "\n"
        }
        text += "\nErrors are application/problem+json. "
        text +=
            options.adminToken == nil ? "The admin API is open." : "The admin API needs Authorization: Bearer <token>."
        text += " Clock: \(options.clock.isManual ? "manual (POST /admin/clock moves it)" : "system").\n"
        return self.text(200, text)
    }

    private func group(_ route: Route) -> String {
        if route.pattern.hasPrefix("/v1") { return "1 SDK endpoints" }
        if route.pattern.hasPrefix("/admin") { return "2 Admin (mock controls)" }
        return "0 Service"
    }
}
