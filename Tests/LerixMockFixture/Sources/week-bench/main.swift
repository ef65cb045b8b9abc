import Foundation
import WeekInTheLife

// Times the week-long test (Tests/AppTests/WeekTests.swift runs the same function): tests per
// second over `runs` runs (argument 1, default 200), against the issue's budget of 50 ms a test.
// Prints one line, `week <tests/s> <median ms> <max ms>`; exits 1 if a run saw something else.
let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
var milliseconds: [Double] = []
let clock = ContinuousClock()
let total = clock.now
for _ in 0..<max(1, runs) {
    let started = clock.now
    let seen = try await weekInTheLife()
    milliseconds.append(seconds(clock.now - started) * 1000)
    guard seen == expected else {
        FileHandle.standardError.write(
            Data("week-bench: the week went differently:\n\(seen.joined(separator: "\n"))\n".utf8)
        )
        exit(1)
    }
}
let elapsed = seconds(clock.now - total)
milliseconds.sort()
print(
    String(
        format: "week %.1f %.2f %.2f",
        Double(milliseconds.count) / elapsed,
        milliseconds[milliseconds.count / 2],
        milliseconds.last ?? 0
    )
)
