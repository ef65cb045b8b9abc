import JSON
import ReleaseControl
import Testing

@testable import MockServer

/// Issue 11: no admin input may change meaning silently. Unknown keys are 422s that name the
/// key and suggest the nearest known one; what GET shows goes back unchanged; one mistake has
/// one problem type on every endpoint.
@Suite struct StrictInputTests {
    func problemType(_ r: Response) -> String? { r["type"]?.stringValue }
    func errors(_ r: Response) -> [JSON] { r["errors"]?.arrayValue ?? [] }

    @Test func aTypoInARuleIsRefusedWithTheKeyAndASuggestion() throws {
        let h = try Harness()
        let r = h.post("/admin/projects/demo/rules", #"{"type":"required_update","below":"2.0.0","platform":["ios"]}"#)
        #expect(r.status == 422)
        #expect(r.header("Content-Type") == "application/problem+json")
        #expect(problemType(r) == "urn:lerix-mock:problem:unknown-field")
        #expect(r.firstPointer == "/platform")
        #expect(r["detail"]?.stringValue?.contains("did you mean 'platforms'?") == true)
        #expect(h.get("/admin/projects/demo/rules")["rules"]?.arrayValue?.isEmpty == true)

        let bellow = h.post("/admin/projects/demo/rules", #"{"type":"required_update","bellow":"2.0.0"}"#)
        #expect(bellow.status == 422)
        #expect(bellow.firstPointer == "/bellow")
        #expect(bellow["detail"]?.stringValue?.contains("did you mean 'below'?") == true)
    }

    @Test func aRuleReadWithGetGoesBackWithPutUnchanged() throws {
        let h = try Harness()
        let created = h.post(
            "/admin/projects/demo/rules",
            #"{"type":"maintenance","starts_at":"\#(h.time(60))","ends_at":"\#(h.time(3600))"}"#
        )
        #expect(created.status == 201)
        let id = try #require(created["id"]?.stringValue)
        let shown = h.get("/admin/projects/demo/rules/\(id)")
        let put = h.put("/admin/projects/demo/rules/\(id)", shown.text)
        #expect(put.status == 200)
        #expect(put.json == shown.json)
        // Another rule's id is a change the API does not allow.
        var other = try #require(shown.json?.objectValue)
        other["id"] = "r99"
        let moved = h.put("/admin/projects/demo/rules/\(id)", JSON.object(other).serializedString)
        #expect(moved.status == 422)
        #expect(moved.firstPointer == "/id")
        // On create the server assigns the id.
        #expect(h.post("/admin/projects/demo/rules", shown.text).status == 422)
    }

    @Test func aProjectReadWithGetGoesBackWithPutUnchanged() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", #"{"type":"optional_update","below":"2.0"}"#)
        let shown = h.get("/admin/projects/demo")
        let put = h.put("/admin/projects/demo", shown.text)
        #expect(put.status == 200)
        #expect(put.json == shown.json)
        let stale = h.put("/admin/projects/demo", #"{"rules": 5}"#)
        #expect(stale.status == 422)
        #expect(stale.firstPointer == "/rules")
        let typo = h.put("/admin/projects/demo", #"{"apns_topik": "dev.lerix"}"#)
        #expect(typo.status == 422)
        #expect(problemType(typo) == "urn:lerix-mock:problem:unknown-field")
        #expect(typo["detail"]?.stringValue?.contains("did you mean 'apns_topic'?") == true)
    }

    @Test func aWrongTypeIsOneProblemTypeOnEveryBody() throws {
        let h = try Harness()
        let answers = [
            h.post("/admin/projects/demo/rules", #"{"type":"required_update","below":2}"#),
            h.post("/admin/clock", #"{"advance_seconds":"60"}"#),
            h.post("/v1/projects/demo/ingest/errors", #"{"items":1}"#),
            h.put("/admin/projects/demo", #"{"apns_topic":7}"#),
            h.post("/admin/projects/demo/faults", #"{"kind":"status","status":"503"}"#),
            h.put("/admin/state", #"{"projects":[{"key":5}]}"#),
        ]
        for r in answers {
            #expect(r.status == 400)
            #expect(problemType(r) == "urn:lerix-mock:problem:wrong-type", "\(r.text)")
        }
    }

    @Test func unknownFieldsAreRefusedOnEveryAdminBody() throws {
        let h = try Harness()
        let answers = [
            (h.post("/admin/clock", #"{"advance_secs":60}"#), "/advance_secs", "advance_seconds"),
            (h.post("/admin/projects/demo/faults", #"{"kind":"status","status":503,"cout":2}"#), "/cout", "count"),
            (h.put("/admin/state", #"{"projects":[{"key":"demo","rulez":[]}]}"#), "/projects/0/rulez", "rules"),
            (
                h.put("/admin/state", #"{"projects":[{"key":"demo","push_tokens":[{"token":"t","platfrom":"ios"}]}]}"#),
                "/projects/0/push_tokens/0/platfrom", "platform"
            ),
        ]
        for (r, pointer, suggestion) in answers {
            #expect(r.status == 422, "\(r.text)")
            #expect(problemType(r) == "urn:lerix-mock:problem:unknown-field")
            #expect(errors(r).contains { $0["pointer"]?.stringValue == pointer }, "\(r.text)")
            #expect(r["detail"]?.stringValue?.contains("did you mean '\(suggestion)'?") == true, "\(r.text)")
        }
        // A field of another fault kind is refused too.
        #expect(h.post("/admin/projects/demo/faults", #"{"kind":"reset","seconds":5}"#).status == 422)
    }

    @Test func theClockAcceptsWhatItsGetShows() throws {
        let h = try Harness()
        let shown = try #require(h.get("/admin/clock").json?.objectValue)
        var body = shown
        body["advance_seconds"] = 60
        #expect(h.post("/admin/clock", JSON.object(body).serializedString).status == 200)
        body["advance_seconds"] = nil
        body["set"] = .string(h.time(60))
        #expect(
            h.post("/admin/clock", JSON.object(body).serializedString).status == 422,
            "the old now is not the clock's now"
        )
    }

    @Test func anExportImportsBackUnchanged() throws {
        let h = try Harness()
        _ = h.post("/admin/projects/demo/rules", #"{"type":"required_update","below":"2.0","platforms":["ios"]}"#)
        _ = h.put("/v1/projects/demo/push-tokens/abc", #"{"platform":"ios"}"#)
        let exported = h.get("/admin/state")
        let imported = h.put("/admin/state", exported.text)
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json == exported.json)
    }

    @Test func theJournalOfAnUnknownProjectIs404() throws {
        let h = try Harness()
        let r = h.get("/admin/requests?project=nope")
        #expect(r.status == 404)
        #expect(problemType(r) == "urn:lerix-mock:problem:unknown-project")
        #expect(h.get("/admin/requests?project=demo").status == 200)
        #expect(h.get("/admin/requests?project=").status == 200)
        #expect(h.get("/admin/requests?limit=").status == 422)
        #expect(h.get("/admin/requests?limit=99999999999999999999999").status == 200)
    }

    @Test func unknownAdminQueryParametersAreRefusedWithASuggestion() throws {
        let h = try Harness()
        let r = h.get("/admin/requests?limt=5")
        #expect(r.status == 422)
        #expect(problemType(r) == "urn:lerix-mock:problem:unknown-parameter")
        #expect(errors(r).first?["parameter"]?.stringValue == "limt")
        #expect(r["detail"]?.stringValue?.contains("did you mean 'limit'?") == true)
        let none = h.get("/admin/projects/demo/rules?verbose=1")
        #expect(none.status == 422)
        #expect(none["detail"]?.stringValue?.contains("takes no query parameters") == true)
        // SDKs send parameters this server does not know yet: the check ignores them.
        #expect(h.check("platform=ios&version=1.0&new_thing=1").status == 200)
    }

    @Test func aConfigFileWithATypoStopsWithTheKeyAndASuggestion() {
        let text = #"{"projects":[{"key":"demo","rules":[{"type":"required_update","bellow":"2.0.0"}]}]}"#
        do {
            _ = try ConfigFile.parse(Array(text.utf8), file: "seed.json")
            Issue.record("a typo in a config file must stop the start")
        } catch {
            #expect(error.description.contains("/projects/0/rules/0/bellow"), "\(error)")
            #expect(error.description.contains("did you mean 'below'?"), "\(error)")
        }
    }

    @Test func theOpenAPIDocumentNamesTheAdminTokenOnlyWhenTheServerHasOne() throws {
        let open = try Harness().get("/openapi.json").json
        #expect(open?["components"]?["securitySchemes"] == nil)
        #expect(open?["paths"]?["/admin/clock"]?["get"]?["security"] == nil)
        #expect(open?["paths"]?["/admin/clock"]?["get"]?["responses"]?["401"] == nil)
        let guarded = try Harness(adminToken: "s3cret").get(
            "/openapi.json",
            headers: [("Authorization", "Bearer s3cret")]
        ).json
        #expect(guarded?["components"]?["securitySchemes"]?["adminToken"] != nil)
        #expect(guarded?["paths"]?["/admin/clock"]?["get"]?["security"] != nil)
        #expect(guarded?["paths"]?["/admin/clock"]?["get"]?["responses"]?["401"] != nil)
        #expect(guarded?["paths"]?["/healthz"]?["get"]?["security"] == nil)
    }

    @Test func theOpenAPIDocumentSaysNullWhereTheServerSendsIt() throws {
        let doc = try #require(try Harness().get("/openapi.json").json)
        let answer = try #require(doc["components"]?["schemas"]?["CheckAnswer"])
        let required = answer["properties"]?["required_update"]
        #expect(required?["type"] == ["object", "null"])
        #expect(required?["properties"]?["message"]?["type"] == ["string", "null"])
        #expect(required?["properties"]?["store_url"]?["type"] == ["string", "null"])
        let project = try #require(doc["components"]?["schemas"]?["Project"])
        #expect(project["properties"]?["apns_topic"]?["type"] == ["string", "null"])
        #expect(project["additionalProperties"] == false)
    }
}
