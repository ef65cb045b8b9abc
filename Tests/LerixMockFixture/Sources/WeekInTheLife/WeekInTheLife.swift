import Foundation
import LerixMock
import LerixSDK

/// A week of an Android app's life against the mock, in true time that only the mock moves:
/// a recommended update's deadline passing offline, a lift-all that reaches the background app
/// by silent push, a maintenance window announced by push an hour ahead. What the app showed at
/// each step, for a test to compare with ``expected`` and the benchmark to time.
public func weekInTheLife() async throws -> [String] {
    let mock = try LerixMock()
    let app = mock.makeApp(platform: .android, appVersion: "2.3.0", pushToken: "fcm-week")
    var seen: [String] = []
    func note(_ step: String, _ state: LerixState) { seen.append("\(step): \(state.screen.rawValue)") }

    try mock.create(RecommendedUpdateRule(below: "2.4.0", becomesRequiredOn: mock.now.addingTimeInterval(3 * 86_400)))
    note("launch", await app.start())
    _ = await app.enterBackground()
    _ = await app.networkReachabilityChanged(isReachable: false)
    try await mock.advance(by: .days(3) + .hours(1))
    note("offline past the deadline", app.state)
    note("back online", await app.networkReachabilityChanged(isReachable: true))

    let lifted = try mock.liftAll()
    note("pushed a lift-all of \(lifted.count)", app.state)

    try await mock.advance(by: .minutes(2))
    try mock.create(
        MaintenanceRule(from: mock.now.addingTimeInterval(1_800), until: mock.now.addingTimeInterval(9_000))
    )
    note("pushed a window starting in 30 min", app.state)
    try await mock.advance(by: .minutes(31))
    note("in the window", app.state)
    try await mock.advance(by: .hours(2))
    note("after it", app.state)

    try await mock.advance(to: LerixMock.defaultStart.addingTimeInterval(7 * 86_400))
    seen.append("pushes: \(try mock.pushes().count), checks: \(try mock.journal().count)")
    return seen
}

/// What ``weekInTheLife()`` shows when the mock and the SDK keep the spec's promises.
public let expected = [
    "launch: optional_update",
    "offline past the deadline: required_update",
    "back online: required_update",
    "pushed a lift-all of 1: none",
    "pushed a window starting in 30 min: none",
    "in the window: maintenance",
    "after it: none",
    "pushes: 2, checks: 3",
]
