import LerixMock
import LerixSDK
import XCTest

/// The library under XCTest, as an older suite would use it: one mock per test method.
final class XCTestExampleTests: XCTestCase {
    /// Scenarios/sdk-switch-pauses-modules.yaml: a switch pauses a module until its end time.
    func testAnSDKSwitchPausesAModuleUntilItEnds() async throws {
        let mock = try LerixMock()
        let app = mock.makeApp(platform: .ios, appVersion: "2.3.0", sdkVersion: "1.2.0")
        try mock.create(
            SDKSwitchRule(
                pausing: [.analytics],
                until: mock.now.addingTimeInterval(3_600),
                sdks: [(name: "swift", below: "1.3.0")]
            )
        )
        _ = await app.start()
        XCTAssertTrue(app.isPaused(.analytics))
        XCTAssertFalse(app.isPaused(.errors))
        try await mock.advance(by: .hours(1) + .seconds(1))
        XCTAssertFalse(app.isPaused(.analytics), "the switch lifts at its end time, with no check")
    }

    /// A mistake in a rule is the server's problem, with its pointer, as a Swift error.
    func testARefusedRuleThrowsTheServersProblem() throws {
        let mock = try LerixMock()
        XCTAssertThrowsError(try mock.create(RawRule(#"{"type": "required_update", "belwo": "2.4.0"}"#))) { error in
            guard let problem = error as? MockProblem else { return XCTFail("not a MockProblem: \(error)") }
            XCTAssertEqual(problem.status, 422)
            XCTAssertTrue(problem.errors.contains { $0.pointer == "/belwo" }, "\(problem)")
        }
        XCTAssertEqual(try mock.rules(), [])
    }
}
