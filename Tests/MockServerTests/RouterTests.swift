import HTTP
import JSON
import ReleaseControl
import Testing

@testable import MockServer

@Suite struct RouterTests {
    @Test func unknownPathIs404ProblemJSON() throws {
        let h = try Harness()
        let response = h.get("/nope")
        #expect(response.status == 404)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response["status"] == 404)
        #expect(response["title"] == "Not Found")
        #expect(response["detail"]?.stringValue?.contains("/nope") == true)
    }

    @Test func knownPathWithOtherMethodIs405WithAllow() throws {
        let h = try Harness()
        let response = h.call("PATCH", "/admin/projects/demo/rules")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD, POST")
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(h.call("POST", "/healthz").header("Allow") == "GET, HEAD")
    }

    @Test func headIsAnsweredByTheGetRouteForTheTransportToFrame() throws {
        let h = try Harness()
        let response = h.call("HEAD", "/v1/projects/demo/release-control?platform=ios")
        #expect(response.status == 200)
        #expect(response.header("ETag") != nil)
        #expect(
            response.raw.body == h.check("platform=ios").raw.body,
            "the transport drops the body, keeping its length"
        )
    }

    @Test func healthzAndIndexAnswerPlainText() throws {
        let h = try Harness()
        #expect(h.get("/healthz").status == 200)
        let index = h.get("/")
        #expect(index.status == 200)
        #expect(index.header("Content-Type")?.hasPrefix("text/plain") == true)
        for route in Router.standard.routes {
            #expect(
                index.text.contains(route.method + " " + route.pattern),
                "index lists \(route.method) \(route.pattern)"
            )
        }
    }

    @Test func percentEncodedSegmentsAreDecodedOnce() throws {
        let h = try Harness()
        #expect(h.put("/admin/projects/my%2Dapp", "").status == 201)
        #expect(h.get("/admin/projects/my-app")["key"] == "my-app")
    }

    @Test func openAPIDocumentsEveryRouteOfTheRouter() throws {
        let h = try Harness()
        let response = h.get("/openapi.json")
        #expect(response.status == 200)
        let doc = try #require(response.json)
        #expect(doc["openapi"] == "3.2.0")
        // The event stream is described event by event (3.2's itemSchema), each an object as an SSE reader parses it.
        let stream = doc["paths"]?["/admin/events"]?["get"]?["responses"]?["200"]?["content"]?["text/event-stream"]
        #expect(stream?["schema"] == nil)
        #expect(stream?["itemSchema"]?["type"] == "object")
        #expect(stream?["itemSchema"]?["properties"]?.objectValue?.keys.sorted() == ["data", "event", "id", "retry"])
        #expect(stream?["itemSchema"]?["properties"]?["event"]?["enum"]?.arrayValue?.count == EventFeed.kinds.count)
        // What the server sets is readOnly in a snapshot sent back, and stored ids are positive.
        let input = doc["components"]?["schemas"]?["StateSnapshotInput"]?["properties"]?["projects"]?["items"]?[
            "properties"
        ]
        let push = input?["pushes"]?["items"]?["properties"]
        for derived in ["tokens", "delivered", "failed", "pending", "no_gateway"] {
            #expect(push?[derived]?["readOnly"] == true, "\(derived) is set by the server")
        }
        #expect(push?["id"]?["minimum"] == 1 && push?["changes"]?["items"]?["minimum"] == 1)
        #expect(input?["changes"]?["items"]?["properties"]?["id"]?["minimum"] == 1)
        #expect(
            h.get("/openapi.json", headers: [("Host", "127.0.0.1:4567")]).json?["servers"]?.arrayValue?.first?["url"]
                == "http://127.0.0.1:4567"
        )
        let paths = try #require(doc["paths"]?.objectValue)
        for route in Router.standard.routes {
            let operation = paths[route.pattern]?[route.method.lowercased()]
            #expect(operation != nil, "\(route.method) \(route.pattern) is missing from /openapi.json")
            #expect(operation?["responses"]?.objectValue?.count ?? 0 > 0)
        }
        var operations = 0
        for (_, item) in paths { operations += item.objectValue?.count ?? 0 }
        #expect(operations == Router.standard.routes.count, "the spec documents no route the router lacks")
        for endpoint in Endpoint.allCases {
            #expect(Router.standard.routes.contains { $0.endpoint == endpoint }, "\(endpoint) has a route")
        }
        // Every $ref resolves.
        let schemas = try #require(doc["components"]?["schemas"]?.objectValue)
        func refs(_ json: JSON) -> [String] {
            switch json {
            case .object(let o): return o.flatMap { $0.key == "$ref" ? [$0.value.stringValue ?? ""] : refs($0.value) }
            case .array(let a): return a.flatMap(refs)
            default: return []
            }
        }
        for ref in refs(doc) {
            let name = String(ref.dropFirst("#/components/schemas/".count))
            #expect(schemas[name] != nil, "\(ref) resolves")
        }
    }
}

@Suite struct AdminTokenTests {
    @Test func adminNeedsTheBearerTokenButSDKEndpointsDoNot() throws {
        let h = try Harness(adminToken: "s3cret")
        let missing = h.get("/admin/projects")
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(missing.header("Content-Type") == "application/problem+json")
        let wrong = h.get("/admin/projects", headers: [("Authorization", "Bearer nope")])
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate")?.contains("invalid_token") == true)
        #expect(h.get("/admin/projects", headers: [("Authorization", "Bearer s3cret")]).status == 200)
        #expect(h.get("/admin/projects", headers: [("Authorization", "bearer s3cret")]).status == 200)
        #expect(h.check("platform=ios").status == 200)
        #expect(h.put("/v1/projects/demo/push-tokens/abc", #"{"platform":"ios"}"#).status == 204)
        #expect(h.get("/healthz").status == 200)
        #expect(h.get("/openapi.json").status == 200)
    }
}

@Suite struct ProblemTests {
    @Test func problemTypeIsAboutBlankOnlyForTheStatusPhrase() {
        #expect(Problem(status: 404, detail: "x").json["type"] == "about:blank")
        #expect(Problem.unknownProject("ghost").json["type"] == "urn:lerix-mock:problem:unknown-project")
        #expect(
            Problem(status: 400, title: "Wrong type in body", detail: "x").type
                == "urn:lerix-mock:problem:wrong-type-in-body"
        )
    }

    @Test(arguments: [
        (
            "/v1/projects/demo/release-control?platform=ios&version=1.0.0",
            ["v1", "projects", "demo", "release-control"]
        ),
        ("//admin//projects/", ["admin", "projects"]),
        ("/", []),
        ("/healthz?x=%zz", ["healthz"]),
        ("/admin/projects/a%2Fb/rules", ["admin", "projects", "a/b", "rules"]),
        ("/ui/caf%C3%A9", ["ui", "café"]),
    ])
    func pathSegmentsAreSplitAtSlashesBeforeTheQueryAndDecodedOneByOne(target: String, expected: [String]) {
        #expect(Router.segments(HTTP.HTTPRequest(method: "GET", target: target)) == expected)
    }
}

/// The check's fast path (``Router/checkProject(_:)``) answers only where the general route
/// would reach the check with the same project and nothing to refuse; everything else goes the
/// general way.
@Suite struct CheckFastPathTests {
    static let targets = [
        "/v1/projects/demo/release-control", "/v1/projects/demo/release-control?platform=ios&version=1.0",
        "/v1/projects/shop-app_2.x~/release-control?", "/v1/projects/demo/release-control/",
        "//v1/projects/demo/release-control",
        "/v1/projects//release-control", "/v1/projects/de%6Do/release-control",
        "/v1/projects/d\u{01}mo/release-control",
        "/v1/projects/dé/release-control", "/v1/projects/demo/release-controls",
        "/v1/projects/demo/release-control-x?a=b",
        "/v1/projects/demo", "/v1/projects/a/b/release-control", "/v1/projects/a?b/release-control",
        "/admin/projects/demo",
    ]

    @Test(arguments: ["GET", "HEAD", "POST", "PUT"])
    func fastPathAgreesWithTheGeneralRoute(method: String) {
        for target in Self.targets {
            let request = HTTPRequest(method: method, target: target)
            guard let fast = Router.checkProject(request) else { continue }
            let general = Router.standard.resolve(method: method, path: Router.segments(request))
            guard case .matched(let route, let parameters) = general else {
                Issue.record("\(method) \(target): fast path found \(fast), the general route did not match")
                continue
            }
            #expect(route.endpoint == .check && parameters["project"] == fast, "\(method) \(target)")
            #expect(MockServer.identifierProblem(parameters) == nil, "\(method) \(target)")
        }
    }

    @Test func fastPathTakesPlainChecksAndLeavesTheRest() {
        func project(_ method: String, _ target: String) -> String? {
            Router.checkProject(HTTPRequest(method: method, target: target))
        }
        #expect(project("GET", "/v1/projects/demo/release-control?platform=ios") == "demo")
        #expect(project("HEAD", "/v1/projects/shop-app_2.x~/release-control?") == "shop-app_2.x~")
        #expect(project("POST", "/v1/projects/demo/release-control") == nil)
        for target in [
            "/v1/projects/de%6Do/release-control", "/v1/projects/dé/release-control",
            "/v1/projects/demo/release-control/",
            "/v1/projects/d\u{01}mo/release-control", "/v1/projects/demo/release-controls",
        ] {
            #expect(project("GET", target) == nil, "\(target)")
        }
    }
}

/// The check memo (``CheckQueryMemo/check(_:)``) answers exactly what the fast path and the
/// query's reading would, and keeps only checks.
@Suite struct CheckMemoTests {
    @Test(arguments: ["GET", "HEAD", "POST", "PUT"])
    func theMemoAgreesWithTheFastPathForEveryTargetTwice(method: String) {
        let memo = CheckQueryMemo(capacity: 4)
        for _ in 0..<2 {
            for target in CheckFastPathTests.targets {
                let request = HTTPRequest(method: method, target: target)
                let read = memo.check(request)
                #expect(read?.project == Router.checkProject(request), "\(method) \(target)")
                guard let read else { continue }
                let query = CheckQuery(request)
                #expect(read.query.platform == query.platform && read.query.version == query.version)
                switch MockServer.deviceKey(query) {
                case .success(let key): #expect(read.key == key && read.problem == nil, "\(target)")
                case .failure(let problem): #expect(read.key == nil && read.problem == problem, "\(target)")
                }
            }
        }
    }

    @Test func aTargetIsReadOnceAndOnlyChecksAreKept() {
        let memo = CheckQueryMemo(capacity: 10)
        let target = "/v1/projects/demo/release-control?platform=ios&version=2.3.0"
        let first = memo.check(HTTPRequest(method: "GET", target: target))
        #expect(first?.project == "demo" && first?.key?.platform == .ios && first?.query.version == "2.3.0")
        let other = memo.check(HTTPRequest(method: "GET", target: "/v1/projects/other/release-control?platform=web"))
        #expect(other?.project == "other" && other?.key?.platform == .web)
        #expect(memo.check(HTTPRequest(method: "HEAD", target: target)) === first, "read once, by target")
        #expect(memo.check(HTTPRequest(method: "GET", target: target)) === first)
        #expect(memo.check(HTTPRequest(method: "POST", target: target)) == nil)
        #expect(memo.check(HTTPRequest(method: "GET", target: "/admin/projects")) == nil)
        let refused = memo.check(HTTPRequest(method: "GET", target: "/v1/projects/demo/release-control"))
        #expect(refused?.key == nil && refused?.problem?.status == 422, "no platform: the 422 is read once too")
    }
}

/// A project's answer cache remembers the last answer looked up; it is always the one the
/// cache holds for its key.
@Suite struct AnswerCacheTests {
    static func answer(_ key: String) -> ServedAnswer {
        ServedAnswer(
            ProjectState(key: key, seedRules: []).evaluate(ServedAnswerTests.device, now: ServedAnswerTests.t0)
        )
    }

    static func read(_ query: String) -> CheckQueryMemo.Read {
        CheckQueryMemo.Read(
            project: "demo",
            request: HTTPRequest(method: "GET", target: "/v1/projects/demo/release-control?" + query)
        )
    }

    @Test func theLastAnswerLookedUpIsTheOneStoredForItsReadsKey() {
        let a = Self.read("platform=ios&version=2.3.0")
        let sameKey = Self.read("platform=ios&version=2.3.0&build=7")  // another target, the same device class
        let b = Self.read("platform=ios&version=2.4.1")
        let (x, y, z) = (Self.answer("x"), Self.answer("y"), Self.answer("z"))
        var cache = AnswerCache()
        #expect(cache.answer(for: a) == nil)
        cache.store(x, for: a, capacity: 10)
        #expect(cache.answer(for: a) === x && cache.answer(for: sameKey) === x)
        #expect(cache.answer(for: b) == nil)
        cache.store(y, for: b, capacity: 10)
        #expect(cache.answer(for: a) === x && cache.answer(for: b) === y)
        #expect(cache.answer(for: a) === x)
        cache.store(z, for: sameKey, capacity: 10)
        #expect(cache.answer(for: a) === z, "a key stored again through another target answers anew")
        #expect(cache.answer(for: b) === y && cache.answer(for: sameKey) === z && cache.count == 2)
        cache.removeAll()
        #expect(cache.answer(for: a) == nil && cache.answer(for: b) == nil && cache.count == 0)

        cache.store(x, for: a, capacity: 1)
        #expect(cache.answer(for: a) === x)
        cache.store(y, for: b, capacity: 1)
        #expect(cache.answer(for: a) == nil, "a full cache starts over")
        #expect(cache.answer(for: b) === y && cache.count == 1)

        let refused = Self.read("version=2.3.0")
        cache.store(x, for: refused, capacity: 10)
        #expect(cache.answer(for: refused) == nil && cache.count == 1, "a read without a device caches nothing")
    }
}
