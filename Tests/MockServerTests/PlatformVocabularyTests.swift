import JSON
import ReleaseControl
import Testing

@testable import MockServer

/// The platforms are written once, in ``Platform``: the OpenAPI document's enums and every
/// message that lists the valid values are made from it (they were five hand-written lists).
@Suite struct PlatformVocabularyTests {
    static let all = JSON.array(Platform.allCases.map { .string($0.rawValue) })
    static let push: JSON = ["ios", "android", "macos"]

    @Test func theVocabularyIsFourPlatformsThreeOfWhichTakePushes() {
        #expect(Self.all == ["ios", "android", "macos", "web"])
        #expect(JSON.array(Platform.pushPlatforms.map { .string($0.rawValue) }) == Self.push)
        #expect(Platform.listText == "ios, android, macos, web")
        #expect(Platform.pushListText == "ios, android or macos")
    }

    @Test func theDocumentsEnumsComeFromTheVocabulary() throws {
        let h = try Harness()
        let doc = try #require(h.get("/openapi.json").json)
        let parameters = doc["paths"]?["/v1/projects/{project}/release-control"]?["get"]?["parameters"]?.arrayValue
        let platform = parameters?.first { $0["name"] == "platform" }
        #expect(platform?["schema"] == .object([("type", "string"), ("enum", Self.all)]))
        #expect(OpenAPI.pushPlatform["enum"] == Self.push)
        #expect(
            OpenAPI.pushTokenCounts["properties"]?.objectValue.map { Array($0.keys) } == ["ios", "android", "macos"]
        )
    }

    @Test func refusalsListTheValidPlatforms() throws {
        let h = try Harness()
        func message(_ body: String) -> String? {
            h.put("/v1/projects/demo/push-tokens/t", body)["errors"]?.arrayValue?.first?["message"]?.stringValue
        }
        #expect(message(#"{"platform": "tv"}"#) == #"unknown platform "tv"; expected ios, android or macos"#)
        #expect(message(#"{"platform": "web"}"#) == "web has no push; expected ios, android or macos")
        #expect(message(#"{}"#) == "required: ios, android or macos")
        #expect(message(#""ios""#) == #"expected {"platform": "ios"|"android"|"macos"}, found string"#)
        let check = h.get("/v1/projects/demo/release-control")
        #expect(check["detail"] == "the query needs platform=ios|android|macos|web")
    }
}

extension PlatformVocabularyTests {
    /// The dashboard's rule form is a checked-in page: its platform boxes are exactly the vocabulary.
    @Test func theDashboardsRuleFormOffersEveryPlatformOnce() {
        let page = String(decoding: PackageResources.index_html, as: UTF8.self)
        let marker = #"name="platforms" value=""#
        let offered = page.components(separatedBy: marker).dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(offered == Platform.allCases.map(\.rawValue))
    }
}
