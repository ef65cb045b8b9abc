import AdapterProtocol
import Testing

@testable import ScenarioLanguage

/// The default SDK per platform is a table, not a list made from the vocabulary: it names
/// exactly the vocabulary's platforms.
@Suite struct PlatformSDKTests {
    @Test func everyPlatformHasTheSDKItsNativeAppsUse() {
        #expect(Set(DeviceSpec.platformSDKs.keys) == Set(AdapterVocabulary.platforms))
    }
}
