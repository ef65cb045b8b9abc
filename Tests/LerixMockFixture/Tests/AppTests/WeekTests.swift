import Foundation
import LerixMock
import Testing
import WeekInTheLife

@Suite struct WeekTests {
    /// A week of app life (block, offline, deadline, lift, push) in well under 50 ms of wall time;
    /// `make bench` times it (Sources/week-bench).
    @Test func aWeekOfAppLifeRunsWithNoSleep() async throws {
        let wall = ContinuousClock()
        let started = wall.now
        let seen = try await weekInTheLife()
        #expect(seen == expected)
        // Not a timing test (make bench measures it): a sleep or a wall-clock wait would show here as seconds.
        #expect(wall.now - started < .seconds(5))
    }
}
