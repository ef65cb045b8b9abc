import HTTP

/// The admin API answers only its own pages and tools, never another site in the same
/// browser (``CrossSiteGuard`` says how): without it a page could create rules (which push),
/// start a recording, or `POST /admin/reset` a state file away. `--admin-token` stops it too,
/// but is off by default.
extension MockServer {
    func crossSiteProblem(_ request: HTTPRequest) -> Problem? {
        let guarding = CrossSiteGuard(surface: "the admin API", allowedHosts: options.allowedHosts)
        guard let refusal = guarding.refusal(for: request) else { return nil }
        return Problem(status: refusal.status, detail: refusal.detail, headers: refusal.headers)
    }
}
