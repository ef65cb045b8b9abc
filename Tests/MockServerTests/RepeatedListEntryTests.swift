import JSON
import Testing

@testable import MockServer

/// schemathesis found `modules: ["errors","errors"]` accepted and shown back as `["errors"]`
/// (issue 42 item 11): a repeat in `platforms` or `modules` is now a 422 at the repeat, and the
/// schema says `uniqueItems`, so the two agree.
@Suite struct RepeatedListEntryTests {
    @Test func aRepeatedModuleOrPlatformIsA422AtTheRepeat() throws {
        let h = try Harness()
        let module = h.post(
            "/admin/projects/demo/rules",
            #"{"type": "sdk_switch", "modules": ["errors", "errors"], "ends_at": "2026-12-03T00:00:00.000Z"}"#
        )
        #expect(module.status == 422)
        #expect(module.firstPointer == "/modules/1")
        let platform = h.post(
            "/admin/projects/demo/rules",
            #"{"type": "required_update", "platforms": ["ios", "android", "ios"], "below": "2.0"}"#
        )
        #expect(platform.status == 422)
        #expect(platform.firstPointer == "/platforms/2")
        #expect(h.get("/admin/projects/demo/rules")["rules"] == [])
    }

    @Test func theSchemaSaysUniqueItems() throws {
        let h = try Harness()
        let document = try #require(h.get("/openapi.json").json)
        let text = String(decoding: document.serialized(), as: UTF8.self)
        #expect(text.contains(#""uniqueItems":true"#))
    }
}
