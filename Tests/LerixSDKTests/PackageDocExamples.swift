// swift-format-ignore-file
// Verbatim copies of documentation examples, laid out as the docs show them (DocExamplesTests).
import Clock
import Foundation
@testable import LerixSDK

// The `swift` examples of the SDK's package-only types (the release control machine and the
// answer reader), verbatim, compiled and never run; see DocExamples.swift for the public ones.
enum PackageDocExamples {
    static func machine(config: LerixConfiguration) {
        var machine = ReleaseControlMachine(configuration: config, saved: SavedAnswer())
        let actions = machine.handle(.launch, now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)
        // [.stateChanged, .send(<GET …/release-control?platform=ios…>, .check), .scheduleTimer(at: …)]
        _ = actions
    }

    static func answer() throws {
        let answer = try CheckAnswer.parse(Array(#"{"lifetime": "60", "maintenance": []}"#.utf8))
        print(answer.lifetime)       // unusable: a string is not a lifetime
        print(answer.maintenance)    // value([])
    }
}
