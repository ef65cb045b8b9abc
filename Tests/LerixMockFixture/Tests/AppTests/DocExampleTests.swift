// swift-format-ignore-file
// Verbatim copies of documentation examples, laid out as the docs show them (DocExamplesTests).
import LerixMock
import LerixSDK
import Testing

// The examples in LerixMock's doc comments, compiled and run (DocExamplesTests checks each
// doc comment's example appears here line for line).

@Suite struct DocExampleTests {
    /// LerixMock's own doc comment.
    @Test func theMocksExample() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .ios, appVersion: "2.3.0")
        try mock.create(RequiredUpdateRule(below: "2.4.0"))
        #expect(await app.start().screen == .requiredUpdate)
        try await mock.advance(by: .days(7))        // server and app move together, no sleep
        #expect(app.state.screen == .requiredUpdate)
    }

    /// RawRule's and RequiredUpdateRule's doc comments.
    @Test func rulesTypedAndRaw() throws {
        let mock = try LerixMock()
        try mock.create(RawRule(#"{"type": "required_update", "below": "2.4.0", "platforms": ["ios"]}"#))
        let id = try mock.create(RequiredUpdateRule(below: "2.4.0", message: "Please update"))
        #expect(try mock.rules().map(\.id) == ["r1", id] && id == "r2")
    }
}
