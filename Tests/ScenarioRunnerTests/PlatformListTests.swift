import AdapterProtocol
import Foundation
import JSON
import LerixSDK
import ReleaseControl
import TestSupport
import Testing

/// One list of platforms: the server's ``ReleaseControl/Platform`` and the SDK's own (LerixSDK
/// is a product of its own, so it keeps its type) name the same platforms, and the checked-in
/// adapter schema, which cannot be made from them, lists exactly those.
@Suite struct PlatformListTests {
    @Test func theSDKAndTheServerNameTheSamePlatformsAndTheSamePushPlatforms() {
        #expect(LerixSDK.Platform.allCases.map(\.rawValue) == ReleaseControl.Platform.allCases.map(\.rawValue))
        #expect(AdapterVocabulary.platforms == ReleaseControl.Platform.allCases.map(\.rawValue))
        #expect(AdapterVocabulary.pushPlatforms == ReleaseControl.Platform.pushPlatforms.map(\.rawValue))
        #expect(AdapterVocabulary.pushPlatforms == ["ios", "android", "macos"])
    }

    @Test func theAdapterSchemaListsExactlyThePlatforms() throws {
        let text = try String(
            contentsOfFile: TestFiles.packageRoot + "/Sources/ScenarioRunner/Conformance/adapter-protocol.schema.json",
            encoding: .utf8
        )
        let defs = try #require(try JSON.parse(Array(text.utf8))["$defs"])
        let configPlatforms = defs["config"]?["properties"]?["platform"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(configPlatforms == AdapterVocabulary.platforms)
        let pattern =
            defs["answer.hello"]?["properties"]?["capabilities"]?["items"]?["pattern"]?.stringValue ?? ""
        let listed = "platform:(" + AdapterVocabulary.platforms.joined(separator: "|") + ")"
        #expect(pattern.contains(listed), "\(pattern) lacks \(listed)")
        #expect(pattern.components(separatedBy: "platform:").count == 2, "one platform alternative: \(pattern)")
    }
}
