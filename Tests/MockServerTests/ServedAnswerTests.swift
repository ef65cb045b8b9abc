import Clock
import JSON
import ReleaseControl
import TestSupport
import Testing

@testable import MockServer

/// The check answer's wire form: ETag, body shape, and that the byte writer answers exactly what
/// building the JSON value and serializing it would (TestSupport's `referenceState`).
@Suite struct ServedAnswerTests {
    static let t0 = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)
    static let device = Device(platform: .ios, version: "1.0", build: nil, sdk: nil, sdkVersion: nil)

    static func at(_ seconds: Int64) -> Instant { t0.adding(seconds: seconds) }

    static func project(_ bodies: [String], key: String = "demo") throws -> ProjectState {
        ProjectState(key: key, seedRules: try bodies.map { try RuleBody.decode(JSON.parse($0)) })
    }

    static func served(_ bodies: [String], key: String = "demo", now: Instant = t0) throws -> ServedAnswer {
        ServedAnswer(try project(bodies, key: key).evaluate(device, now: now))
    }

    @Test func responsesShareTheLastFieldsAndBodyOnlyForTheSameTimeAndStatus() throws {
        let answer = try Self.served([])
        let t = "2026-12-02T11:00:00.000Z"
        let first = answer.response(project: "demo", serverTime: t, notModified: false)
        let again = answer.response(project: "demo", serverTime: t, notModified: false)
        #expect(first.status == 200 && again.status == 200)
        #expect(first.headers == again.headers && first.body == again.body)
        #expect(Self.sameStorage(first.body, again.body), "the same time and status share the last body")
        #expect(Self.sameStorage(first.headers.fields, again.headers.fields), "and its fields")
        #expect(first.body == answer.body(project: "demo", serverTimeText: t))
        #expect(first.headers == answer.headers(serverTime: t, notModified: false))

        let notModified = answer.response(project: "demo", serverTime: t, notModified: true)
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        #expect(notModified.headers["Content-Type"] == nil, "a 304 never takes the 200's fields")
        #expect(
            notModified.headers.fields.map(\.name) == ["ETag", "Cache-Control", "Lerix-Server-Time", "Vary"],
            "a 304 ends with the Vary the server gives every 304, so the server adds nothing to its shared fields"
        )
        #expect(notModified.headers["Vary"] == "Accept-Encoding" && first.headers["Vary"] == nil)
        #expect(first.headers["Content-Type"] == "application/json")

        let later = answer.response(project: "demo", serverTime: "2026-12-02T11:01:00.000Z", notModified: true)
        #expect(later.headers["Lerix-Server-Time"] == "2026-12-02T11:01:00.000Z")
        #expect(later.headers["ETag"] == answer.etag && later.headers["Cache-Control"] == answer.cacheControl)

        let back = answer.response(project: "demo", serverTime: t, notModified: false)
        #expect(back.headers == first.headers && back.body == first.body, "an earlier time is made again, the same")

        let other = answer.response(project: "other", serverTime: t, notModified: false)
        #expect(other.body == answer.body(project: "other", serverTimeText: t), "another project's body is its own")
        let afterOther = answer.response(project: "demo", serverTime: t, notModified: false)
        #expect(afterOther.body == first.body)
    }

    static func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    @Test func etagIsWeakAndSixteenHexDigits() throws {
        let etag = try Self.served([]).etag
        #expect(etag.hasPrefix("W/\"") && etag.hasSuffix("\""))
        #expect(etag.count == 16 + 4)
    }

    @Test func etagIsStableAcrossTimeAndLifetimeChanges() throws {
        var p = try Self.project([#"{"type":"required_update","below":"2.0"}"#])
        let early = ServedAnswer(p.evaluate(Self.device, now: Self.t0))
        _ = try p.createRule(JSON.parse(#"{"type":"optional_update","below":"0.1"}"#), now: Self.t0)
        let recent = ServedAnswer(p.evaluate(Self.device, now: Self.at(10)))
        let later = ServedAnswer(p.evaluate(Self.device, now: Self.at(5000)))
        #expect(recent.lifetime == 60 && later.lifetime == 300)
        #expect(recent.cacheControl == "private, max-age=60" && later.cacheControl == "private, max-age=300")
        #expect(early.etag == recent.etag)
        #expect(recent.etag == later.etag)
    }

    @Test func etagDiffersForDifferentStates() throws {
        let a = try Self.served([#"{"type":"required_update","below":"2.0"}"#])
        let b = try Self.served([#"{"type":"required_update","below":"2.0","message":"m"}"#])
        let c = try Self.served([])
        let d = try Self.served([], key: "other")
        #expect(Set([a.etag, b.etag, c.etag, d.etag]).count == 4)
    }

    @Test func etagIsTheHashOfTheBodyWithoutServerTimeAndLifetime() throws {
        let answer = try Self.served([#"{"type":"optional_update","below":"2.0"}"#])
        guard case .object(var body) = try JSON.parse(answer.body(serverTime: Self.t0)) else {
            Issue.record("body is not an object")
            return
        }
        body["server_time"] = nil
        body["lifetime"] = nil
        #expect(answer.etag == "W/\"" + FNV1a64.hex(JSON.object(body).serialized()) + "\"")
    }

    @Test func fnv1aMatchesKnownVectors() {
        #expect(FNV1a64.hex([]) == "cbf29ce484222325")
        #expect(FNV1a64.hex(Array("a".utf8)) == "af63dc4c8601ec8c")
        #expect(FNV1a64.hex(Array("foobar".utf8)) == "85944171f73967e8")
    }

    @Test func bodyHasContractFieldOrderAndParses() throws {
        let answer = try Self.served([#"{"type":"required_update","below":"2.0"}"#])
        let bytes = answer.body(project: "demo", serverTimeText: Self.at(5).rfc3339)
        let parsed = try JSON.parse(bytes)
        #expect(
            parsed.objectValue?.keys == [
                "project", "server_time", "lifetime", "required_update", "optional_update", "maintenance", "sdk_switch",
            ]
        )
        #expect(parsed["server_time"] == .string(Self.at(5).rfc3339))
        #expect(parsed["lifetime"] == 300)
        #expect(parsed["project"] == "demo")
        #expect(answer.body(serverTime: Self.at(5)) == bytes)
    }

    @Test func projectKeyIsEscapedInTheBody() throws {
        let parsed = try JSON.parse(Self.served([], key: "we\"ird").body(serverTime: Self.t0))
        #expect(parsed["project"] == "we\"ird")
    }

    @Test func bodyForAnotherProjectKeyNamesThatKey() throws {
        let parsed = try JSON.parse(Self.served([]).body(project: "other", serverTimeText: Self.t0.rfc3339))
        #expect(parsed["project"] == "other")
        #expect(parsed["server_time"] == .string(Self.t0.rfc3339))
    }

    @Test func bodyIsExactlyTheContractShape() throws {
        let text = String(
            decoding: try Self.served([#"{"type":"optional_update","below":"2.0"}"#]).body(serverTime: Self.t0),
            as: UTF8.self
        )
        #expect(
            text
                == #"{"project":"demo","server_time":"2026-12-02T11:00:00.000Z","lifetime":300,"required_update":null,"optional_update":{"rule":"r1","kind":"optional","below":"2.0","store_url":null,"message":null,"becomes_required_on":null},"maintenance":[],"sdk_switch":[]}"#
        )
    }

    // MARK: The byte writer against the JSON value, over many rule sets

    /// Text that needs every kind of escaping the serializer knows, and some that needs none.
    static func text(_ r: inout SeededRandom) -> String? {
        if r.chance(30) { return nil }
        return r.pick([
            "", "Please update", "quote \" and backslash \\", "line\nbreak\ttab\rreturn", "control \u{01}\u{1f}",
            "café ünïcode ✓ 🚀", "https://apps.apple.com/app/id1?x=1&y=\"2\"", "/slash/ok",
        ])
    }

    static func version(_ r: inout SeededRandom) -> Version {
        Version(
            (0..<r.int(1...3)).map { _ in String(r.int(0...12)) }.joined(separator: ".") + (r.chance(20) ? "-rc.1" : "")
        )
            ?? Version("1.0")!
    }

    static func platforms(_ r: inout SeededRandom) -> [Platform]? {
        r.chance(50) ? nil : [r.pick(Platform.allCases)]
    }

    static func ruleBody(_ r: inout SeededRandom) -> RuleBody {
        let update = UpdateRule(platforms: platforms(&r), below: version(&r), storeURL: text(&r), message: text(&r))
        switch r.int(0...4) {
        case 0: return .requiredUpdate(update)
        case 1: return .optionalUpdate(update)
        case 2:
            return .recommendedUpdate(
                update,
                becomesRequiredOn: at(Int64(r.int(-3000...9000))).adding(milliseconds: Int64(r.int(0...999)))
            )
        case 3:
            let start = at(Int64(r.int(-9000...9000)))
            return .maintenance(
                MaintenanceWindow(
                    platforms: platforms(&r),
                    startsAt: start,
                    endsAt: start.adding(seconds: Int64(r.int(1...7200))),
                    message: text(&r)
                )
            )
        default:
            let modules = (0..<r.int(1...3)).map { _ in r.pick(SDKModule.allCases) }
            let sdks: [SDKMatch]? =
                r.chance(50) ? nil : [SDKMatch(name: "swift", below: r.chance(50) ? version(&r) : nil)]
            return .sdkSwitch(SDKSwitch(sdks: sdks, modules: modules, endsAt: at(Int64(r.int(-3000...9000)))))
        }
    }

    @Test(arguments: 1...40)
    func bodyBytesEqualTheSerializedJSONValue(seed: Int) throws {
        var r = SeededRandom(seed: UInt64(seed))
        let key = r.pick(["demo", "shop-app", "we\"ird\\key", "ünï"])
        var project = ProjectState(key: key, seedRules: (0..<r.int(0...12)).map { _ in Self.ruleBody(&r) })
        if r.chance(50) {
            // A recent change: answers are short-lived for a while.
            _ = try project.createRule(
                JSON.parse(#"{"type":"optional_update","below":"0.1"}"#),
                now: Self.at(Int64(r.int(-2000...0)))
            )
        }
        for _ in 0..<8 {
            let device = Device(
                platform: r.pick(Platform.allCases),
                version: r.chance(85) ? Self.version(&r) : nil,
                sdk: r.chance(70) ? "swift" : nil,
                sdkVersion: r.chance(70) ? Self.version(&r) : nil
            )
            let now = Self.at(Int64(r.int(-4000...4000))).adding(milliseconds: Int64(r.int(0...999)))
            let evaluation = project.evaluate(device, now: now)
            let answer = ServedAnswer(evaluation)
            let served = answer.body(serverTime: now)
            let reference = evaluation.referenceBody(serverTime: now).serialized()
            #expect(
                served == reference,
                "seed \(seed): \(String(decoding: served, as: UTF8.self)) != \(String(decoding: reference, as: UTF8.self))"
            )
            guard case .object(var canonical) = evaluation.referenceBody(serverTime: now) else { continue }
            canonical["server_time"] = nil
            canonical["lifetime"] = nil
            #expect(answer.etag == "W/\"" + FNV1a64.hex(JSON.object(canonical).serialized()) + "\"")
        }
    }
}
