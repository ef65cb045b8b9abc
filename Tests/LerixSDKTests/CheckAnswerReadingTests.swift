import Clock
import JSON
import LerixSDK
import Testing

/// A plain answer (no rule in force) is read straight from its bytes; every other body goes
/// through the JSON tree. Both must give the same answer, or the same refusal.
@Suite struct CheckAnswerReadingTests {
    static let plain =
        #"{"project":"demo","server_time":"2026-12-02T11:00:00.000Z","lifetime":60,"required_update":null,"#
        + #""optional_update":null,"maintenance":[],"sdk_switch":[]}"#

    static var bodies: [String] {
        var bodies = [
            plain,
            #"{"server_time":"2026-12-02T11:00:00.000Z"}"#,
            #"{"lifetime":300,"project":"p","sdk_switch":[],"maintenance":[]}"#,
            #"{"server_time":"2026-12-02T11:00:00+01:00","lifetime":1}"#,
            #"{"server_time":"2026-02-30T11:00:00.000Z","lifetime":60}"#,
            #"{"server_time":"yesterday","lifetime":60}"#,
            #"{"server_time":5,"lifetime":60}"#,
            #"{"lifetime":0}"#, #"{"lifetime":-5}"#, #"{"lifetime":60.5}"#, #"{"lifetime":60.0}"#,
            #"{"lifetime":1e2}"#, #"{"lifetime":0123}"#, #"{"lifetime":"60"}"#,
            #"{"lifetime":123456789012345}"#, #"{"lifetime":1234567890123456}"#,
            #"{"lifetime":60,"lifetime":60}"#, #"{"project":"a","project":"b"}"#,
            #"{"project":"a\"b","lifetime":60}"#, #"{"project":"é","lifetime":60}"#,
            #"{"proj\u0065ct":"a","lifetime":60}"#, #"{"other":1,"lifetime":60}"#,
            #"{"required_update":{"rule":"7","below":"2.4.0"},"lifetime":60}"#,
            #"{"required_update":nul}"#, #"{"optional_update":null,"maintenance":[ ]}"#,
            #"{"maintenance":[{"rule":"m","start":"2026-12-02T11:00:00.000Z","end":"2026-12-02T12:00:00.000Z"}]}"#,
            #"{"sdk_switch":[{"rule":"s","modules":["analytics"]}]}"#, #"{"maintenance":{}}"#,
            #"{ "lifetime":60}"#, #"{"lifetime" : 60 }"#, "{}", "[]", "null", "", "{", #"{"lifetime":60}x"#,
            #"{"lifetime":60},"#, #"{"lifetime":60,}"#, #"{"lifetime":60"#, #"{"project":"a"#,
        ]
        // Every prefix of the plain answer: each is cut off somewhere, and must be refused.
        let bytes = Array(plain.utf8)
        for end in 0..<bytes.count { bodies.append(String(decoding: bytes[0..<end], as: UTF8.self)) }
        return bodies
    }

    @Test func theBytesReaderGivesTheTreeReadersAnswer() {
        for text in Self.bodies {
            let body = Array(text.utf8)
            let fast = Result { () throws(CheckAnswer.Unreadable) in try CheckAnswer.parse(body) }
            let tree = Result { () throws(CheckAnswer.Unreadable) in try CheckAnswer.parseTree(body) }
            #expect(fast == tree, "\(text)")
        }
    }

    @Test func thePlainAnswerIsReadWithoutATree() throws {
        let answer = try #require(CheckAnswer.readPlainAnswer(Array(Self.plain.utf8)))
        #expect(answer.isComplete)
        #expect(answer.lifetime == .value(60))
        #expect(answer.serverTime == .value(try #require(Instant(rfc3339: "2026-12-02T11:00:00.000Z"))))
        #expect(answer.requiredUpdate == .value(nil) && answer.optionalUpdate == .value(nil))
        #expect(answer.maintenance == .value([]) && answer.sdkSwitches == .value([]))
        #expect(CheckAnswer.readPlainAnswer(Array(#"{"lifetime":60,"lifetime":60}"#.utf8)) == nil)
        #expect(CheckAnswer.readPlainAnswer(Array(#"{"required_update":{"rule":"7"}}"#.utf8)) == nil)
    }
}
