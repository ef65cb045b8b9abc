import HTTP
import JSON
import MockServer
import ReleaseControl
import TestSupport
import Testing

@testable import Persistence

/// Identifiers with control characters are refused wherever they arrive, and text reaches the
/// state file whole (issue 12, point 4: `abc` and `abc\0x` were one token after a restart).
@Suite struct IdentifierTests {
    /// Below validation: the file layer keeps whatever text it is given, byte for byte.
    @Test func textWithANulIsStoredWholeAndReadBackAfterReopening() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let file = try StateFile.open(path: path, seed: StoredState(projects: [StoredProject(key: "demo")]))
        for token in ["abc", "abc\u{0}x", "abc\u{0}y"] {
            try file.write([
                .tokenUpserted(
                    project: "demo",
                    token: StoredItem(id: token, body: .object([("token", .string(token))]))
                )
            ])
        }
        try file.write([
            .ingestCounted(project: "demo", module: "errors", total: 2),
            .ingestCounted(project: "demo", module: "errors\u{0}x", total: 3),
        ])
        try file.write([.tokenDeleted(project: "demo", token: "abc\u{0}y")])
        file.close()
        let reopened = try StateFile.open(path: path, seed: StoredState())
        defer { reopened.close() }
        let project = try #require(reopened.initialState[project: "demo"])
        #expect(project.pushTokens.map(\.id) == ["abc", "abc\u{0}x"])
        #expect(project.ingest.map(\.module) == ["errors", "errors\u{0}x"])
    }

    @Test(arguments: ["%00", "%01", "%0A", "%1F", "%7F", "%C2%80", "%C2%9F"])
    func aControlCharacterInAPathIdentifierIsA422NamingTheParameter(control: String) throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("state.db"))
        defer { server.close() }
        #expect(server.call("PUT", "/v1/projects/demo/push-tokens/abc", #"{"platform": "ios"}"#).status == 204)
        let cases: [(String, String, String?, String)] = [
            ("PUT", "/v1/projects/demo/push-tokens/abc\(control)x", #"{"platform": "ios"}"#, "token"),
            ("DELETE", "/v1/projects/demo/push-tokens/abc\(control)", nil, "token"),
            ("POST", "/v1/projects/demo/ingest/errors\(control)", "[1]", "module"),
            ("GET", "/admin/projects/demo/rules/r1\(control)", nil, "rule"),
            ("PUT", "/admin/projects/demo\(control)x", "{}", "project"),
            ("GET", "/v1/projects/demo\(control)/release-control?platform=ios", nil, "project"),
        ]
        for (method, target, body, parameter) in cases {
            let answer = server.call(method, target, body)
            #expect(answer.status == 422, "\(method) \(target)")
            #expect(answer.json?["title"] == "Invalid parameter")
            #expect(
                answer.json?["errors"]?.arrayValue?.first?["parameter"]?.stringValue == parameter,
                "\(method) \(target)"
            )
            #expect(answer.text.contains("control character"))
        }
        #expect(server.call("GET", "/admin/projects/demo/push-tokens").json?["push_tokens"]?.arrayValue?.count == 1)
        #expect(server.call("GET", "/admin/projects").json?["projects"]?.arrayValue?.count == 1)
    }

    @Test func anImportWithControlCharactersInIdentifiersIsRefusedAsAWhole() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("state.db"))
        defer { server.close() }
        let before = server.exported
        let snapshot = #"""
            {"projects": [{"key": "demo",
              "rules": [{"id": "r1\u0000x", "type": "optional_update", "below": "2.0.0"}],
              "push_tokens": [{"token": "abc\u0000x", "platform": "ios"}, {"token": "tab\there", "platform": "ios"}],
              "ingest": {"errors\u0000": 1, "bogus": 2, "errors": 3}}]}
            """#
        let answer = server.call("PUT", "/admin/state", snapshot)
        #expect(answer.status == 422)
        let pointers = Set(answer.json?["errors"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? [])
        #expect(
            pointers == [
                "/projects/0/rules/0/id", "/projects/0/push_tokens/0/token", "/projects/0/push_tokens/1/token",
                "/projects/0/ingest/errors\u{0}", "/projects/0/ingest/bogus",
            ]
        )
        #expect(server.exported == before)
    }

    @Test func changesAndPushRecordsWithControlCharactersInIdsAreRefusedOnImport() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("state.db"))
        defer { server.close() }
        let change =
            #"{"id": 1, "at": "2026-12-02T11:00:00.000Z", "kind": "created", "action": "created", "rule": "r1\u0001", "blocking": false}"#
        let push =
            #"{"id": 1, "sent_at": "2026-12-02T11:00:00.000Z", "changes": [1], "results": [{"token": "a\u0000b", "platform": "ios", "result": "pending"}]}"#
        let answer = server.call(
            "PUT",
            "/admin/state",
            #"{"projects": [{"key": "demo", "changes": [\#(change)], "pushes": [\#(push)]}]}"#
        )
        #expect(answer.status == 422)
        let pointers = Set(answer.json?["errors"]?.arrayValue?.compactMap { $0["pointer"]?.stringValue } ?? [])
        // The rule a change names is checked like a rule's own id, and pointed at.
        #expect(pointers == ["/projects/0/changes/0/rule", "/projects/0/pushes/0"])
    }

    /// The whole path as a person meets it: `serve --state`, a refused token, a restart.
    @Test func aRefusedTokenIsNotThereAfterARestartWithState() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("state.db")
        let first = try ServerProcess.start(["serve", "--state", path, "--port", "0", "--quiet"])
        let client = try TestHTTPClient(port: first.port)
        func put(_ target: String) throws -> Int {
            try client.send(HTTPRequest(method: "PUT", target: target, body: Array(#"{"platform": "ios"}"#.utf8)))
                .status
        }
        #expect(try put("/v1/projects/demo/push-tokens/abc") == 204)
        #expect(try put("/v1/projects/demo/push-tokens/abc%00x") == 422)
        #expect(first.stop() == 0)

        let second = try ServerProcess.start(["serve", "--state", path, "--port", "0", "--quiet"])
        defer { second.stop() }
        let again = try TestHTTPClient(port: second.port)
        let listed = try again.send(HTTPRequest(method: "GET", target: "/admin/projects/demo/push-tokens"))
        let tokens = (try? JSON.parse(listed.body))?["push_tokens"]?.arrayValue?.compactMap { $0["token"]?.stringValue }
        #expect(tokens == ["abc"])
        // The same token deleted with a NUL suffix is refused, not matched to "abc".
        let deleted = try again.send(HTTPRequest(method: "DELETE", target: "/v1/projects/demo/push-tokens/abc%00"))
        #expect(deleted.status == 422)
    }
}
