// swift-format-ignore-file
// Verbatim copies of documentation examples, laid out as the docs show them (DocExamplesTests).
import LerixMock
import LerixSDK
import Testing

// README.md "Using the Swift SDK", as an app team writes it from the README alone: only the
// public products LerixMock and LerixSDK, no set-up, no sleeps. DocExamplesTests checks the
// README's blocks are these lines.

@Test func aRequiredUpdateBlocksTheAppAndLiftingItReachesIt() async throws {
    let mock = try LerixMock()                  // the real server in process, on its own virtual clock
    let app = mock.makeApp(platform: .ios, appVersion: "2.3.0", pushToken: "apns-token-1")
    let rule = try mock.create(RequiredUpdateRule(below: "2.4.0"))
    #expect(await app.start().screen == .requiredUpdate)

    _ = await app.enterBackground()             // in the background only a silent push wakes it
    try mock.deleteRule(rule)
    try await mock.advance(by: .minutes(1))     // the push goes (the 60 s throttle) and the app checks
    #expect(app.state.screen == .none)

    try await mock.advance(by: .days(7))        // server and app move together: a week, no sleep
    try mock.addFault(.status(503))
    #expect(await app.refresh().lastCheckFailure?.status == 503)
    #expect(app.state.screen == .none, "a failed check changes nothing")
}
