import Testing

@testable import MockServer

/// A route compares its literals before it captures anything, and sizes its captures once.
@Suite struct RouteMatchTests {
    @Test func aRouteCapturesEveryParameterAndNothingWhenALiteralDiffers() {
        let route = Route("PUT", "/v1/projects/{project}/push-tokens/{token}", .registerToken)
        #expect(route.parameterCount == 2)
        #expect(
            route.match(["v1", "projects", "demo", "push-tokens", "aa11"]) == ["project": "demo", "token": "aa11"]
        )
        #expect(route.match(["v1", "projects", "demo", "ingest", "aa11"]) == nil)
        #expect(route.match(["v2", "projects", "demo", "push-tokens", "aa11"]) == nil)
        #expect(route.match(["v1", "projects", "demo", "push-tokens"]) == nil)
        let health = Route("GET", "/healthz", .health)
        #expect(health.parameterCount == 0)
        #expect(health.match(["healthz"]) == [:])
        #expect(
            Router.standard.routes.allSatisfy { route in
                route.parameterCount == route.segments.filter { if case .parameter = $0 { true } else { false } }.count
            }
        )
    }
}
