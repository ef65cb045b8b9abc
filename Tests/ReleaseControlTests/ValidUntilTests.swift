import Clock
import JSON
import Testing

@testable import ReleaseControl

/// The cached answer must equal a fresh evaluation at every instant before `validUntil`,
/// and `validUntil` must be the first instant where something actually differs.
@Suite struct ValidUntilTests {
    static let bodies: [String] = [
        #"{"type":"required_update","platforms":["ios"],"below":"2.0"}"#,
        #"{"type":"optional_update","below":"3.0"}"#,
        #"{"type":"recommended_update","below":"2.5","becomes_required_on":"\#(Fixture.time(5000))"}"#,
        #"{"type":"maintenance","starts_at":"\#(Fixture.time(7000))","ends_at":"\#(Fixture.time(9000))"}"#,
        #"{"type":"maintenance","platforms":["android"],"starts_at":"\#(Fixture.time(100))","ends_at":"\#(Fixture.time(200))"}"#,
        #"{"type":"sdk_switch","sdks":[{"name":"swift","below":"2.0"}],"modules":["analytics"],"ends_at":"\#(Fixture.time(12_000))"}"#,
        #"{"type":"sdk_switch","modules":["surveys"],"ends_at":"\#(Fixture.time(4000))"}"#,
    ]

    static let devices: [Device] = [
        Fixture.device(.ios, "1.0", sdk: "swift", sdkVersion: "1.0"),
        Fixture.device(.ios, "2.2"),
        Fixture.device(.android, "2.2"),
        Fixture.device(.web),
    ]

    func same(_ a: Evaluation, _ b: Evaluation) -> Bool { a.decidesLike(b) }

    @Test(arguments: devices)
    func answerHoldsUntilValidUntilAndChangesThere(_ device: Device) throws {
        var p = try Fixture.project(Self.bodies)
        _ = try p.createRule(Fixture.json(#"{"type":"optional_update","below":"0.1"}"#), now: Fixture.at(2000))
        var now = Fixture.at(2000)
        var steps = 0
        while steps < 20 {
            steps += 1
            let answer = p.evaluate(device, now: now)
            guard let until = answer.validUntil else {
                #expect(same(answer, p.evaluate(device, now: now.adding(seconds: 1_000_000))))
                break
            }
            #expect(until > now)
            #expect(
                answer.isValid(at: now) && answer.isValid(at: until.adding(milliseconds: -1))
                    && !answer.isValid(at: until)
            )
            #expect(same(answer, p.evaluate(device, now: until.adding(milliseconds: -1))), "stale before \(until)")
            now = until
        }
        #expect(steps < 20)
    }

    @Test func everyBoundaryChangesSomething() throws {
        let p = try Fixture.project(Self.bodies)
        let device = Fixture.device(.ios, "2.2", sdk: "swift", sdkVersion: "1.0")
        var now = Fixture.t0
        var boundaries: [Instant] = []
        while let until = p.evaluate(device, now: now).validUntil, boundaries.count < 20 {
            #expect(
                !same(p.evaluate(device, now: until.adding(milliseconds: -1)), p.evaluate(device, now: until)),
                "nothing changes at \(until)"
            )
            boundaries.append(until)
            now = until
        }
        #expect(boundaries == [3400, 4000, 5000, 9000, 12_000].map(Fixture.at))
    }
}
