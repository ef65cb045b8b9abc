import Clock
import JSON
import LerixSDK
import Testing

/// The saved answer is written field by field (``SavedAnswer/encoded``), not through a JSON
/// value: its bytes must stay the file format's, so files written before still load and files
/// written now read back as the answer that was saved.
@Suite struct SavedAnswerEncodingTests {
    static let at = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    /// Empty, typical and everything-set answers, with text that needs escaping.
    static var answers: [SavedAnswer] {
        let empty = SavedAnswer()
        var typical = SavedAnswer()
        typical.requiredUpdate = RequiredUpdate(rule: "7", below: "2.4.0", storeURL: nil, message: nil)
        typical.etag = #"W/"3-a1""#
        typical.lifetime = 60
        typical.serverOffsetMilliseconds = -1_250
        typical.receivedAt = at
        typical.lastSuccess = at
        typical.appVersion = "2.3.0"
        var full = typical
        full.optionalUpdate = OptionalUpdate(
            rule: "o\"1",
            kind: .recommended,
            below: "3.0",
            storeURL: "https://s/x",
            message: "line\nnext\ttab \\ é",
            deadline: at.adding(seconds: 86_400)
        )
        full.maintenance = [MaintenanceWindow(rule: "m", start: at, end: at.adding(seconds: 3600), message: nil)]
        full.sdkSwitches = [SDKSwitch(rule: "s", modules: [.analytics, .errors], endsAt: at.adding(seconds: 600))]
        full.build = "41"
        full.skippedRules = ["a", "b\u{1}"]
        full.queue = [
            .analytics: [.object([("n", 1)]), .object([("n", 2)])], .errors: [.object([("message", "boom")])],
        ]
        return [empty, typical, full]
    }

    @Test func encodedBytesAreTheSerializedFileFormat() {
        var offClock = Self.answers[2]
        offClock.serverOffsetMilliseconds = 9_000_000_000_000_000  // past 1e15: the serializer's fraction form
        for answer in Self.answers + [offClock] {
            #expect(answer.encoded == answer.json.serialized(), "\(answer.json.serializedString)")
        }
    }

    @Test func encodedBytesReadBackAsTheSavedAnswer() {
        for answer in Self.answers {
            let read = SavedAnswer(encoded: answer.encoded)
            #expect(read.encoded == answer.encoded)
            #expect(read.requiredUpdate == answer.requiredUpdate && read.optionalUpdate == answer.optionalUpdate)
            #expect(read.maintenance == answer.maintenance && read.sdkSwitches == answer.sdkSwitches)
            #expect(
                read.etag == answer.etag && read.lifetime == answer.lifetime && read.receivedAt == answer.receivedAt
            )
            #expect(read.queue == answer.queue && read.skippedRules == answer.skippedRules)
        }
    }

    @Test func aFileWrittenBeforeLoadsAsItDid() {
        // Written by the JSON value's serializer, as every SDK before this one saved it.
        let old = Array(
            #"""
            {"format":1,"required_update":{"rule":"7","below":"2.4.0","store_url":null,"message":null},"optional_update":null,\#
            "maintenance":[],"sdk_switch":[],"etag":"W/\"3-a1\"","lifetime":60,"server_offset_ms":-1250,\#
            "received_at":"2026-12-02T11:00:00.000Z","last_success":"2026-12-02T11:00:00.000Z","app_version":"2.3.0",\#
            "build":null,"skipped_rules":[],"queue":{}}
            """#.utf8
        )
        let read = SavedAnswer(encoded: old)
        #expect(read == Self.answers[1])
        #expect(read.encoded == old)
    }
}
