import Foundation
import WeekInTheLife

// Times the week-long test (Tests/AppTests/WeekTests.swift runs the same function): tests per
// second over `runs` runs (argument 1, default 200), against the issue's budget of 50 ms a test.
// Prints one line, `week <tests/s> <median ms> <max ms>`; exits 1 if a run saw something else.
let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200
var milliseconds: [Double] = []
let clock = ContinuousClock()
let total = clock.now
for _ in 0..<max(1, runs) {
    let started = clock.now
    let seen = try await weekInTheLife()
    milliseconds.append(Double((clock.now - started).components.attoseconds) / 1e15 + Double((clock.now - started).components.seconds) * 1000)
    guard seen == expected else {
        FileHandle.standardError.write(Data("week-bench: the week went differently:\n\(seen.joined(separator: "\n"))\n".utf8))
        exit(1)
    }
}
let elapsed = clock.now - total
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
milliseconds.sort()
print(String(format: "week %.1f %.2f %.2f", Double(milliseconds.count) / seconds, milliseconds[milliseconds.count / 2], milliseconds.last ?? 0))
