import Clock
import Foundation
import JSON
import LerixSDK
import Randomness
import Testing

/// Thousands of mutated answers through the parser and the state machine: nothing crashes,
/// and every part that still has the right type is applied.
@Suite struct AnswerFuzzTests {
    static let valid: JSON = [
        "project": "demo", "server_time": "2026-12-02T11:00:00.000Z", "lifetime": 60,
        "required_update": ["rule": "r", "below": "2.4.0", "store_url": "https://x", "message": "m"],
        "optional_update": [
            "rule": "o", "kind": "recommended", "below": "2.5.0", "becomes_required_on": "2026-12-03T00:00:00.000Z",
        ],
        "maintenance": [["rule": "m", "starts_at": "2026-12-02T12:00:00.000Z", "ends_at": "2026-12-02T13:00:00.000Z"]],
        "sdk_switch": [["rule": "s", "modules": ["analytics", "bogus"], "ends_at": "2026-12-02T12:00:00.000Z"]],
    ]

    static func garbage(_ rng: inout SplitMix64) -> JSON {
        switch rng.below(8) {
        case 0: return .null
        case 1: return .bool(rng.below(2) == 0)
        case 2: return .number(Double(Int64(bitPattern: rng.next()) % 1_000_000) / 7)
        case 3: return .string(String(repeating: "x", count: rng.below(5)))
        case 4: return .array([.number(1), .string("2026-13-40T99:00:00Z")])
        case 5: return .object([("rule", .number(3)), ("starts_at", .string("2026-12-02T12:00:00.000Z"))])
        case 6: return .string("2026-12-02T12:00:00.000Z")
        default: return .array([])
        }
    }

    static func mutate(_ value: JSON, _ rng: inout SplitMix64, depth: Int = 0) -> JSON {
        if rng.below(6) == 0 { return garbage(&rng) }
        switch value {
        case .object(let object):
            var out = JSONObject()
            for (key, item) in object where rng.below(12) != 0 {
                out[key] = mutate(item, &rng, depth: depth + 1)
            }
            return .object(out)
        case .array(let items):
            return .array(items.compactMap { rng.below(10) == 0 ? nil : mutate($0, &rng, depth: depth + 1) })
        default:
            return value
        }
    }

    @Test func thousandsOfMutatedAnswersNeverCrashAndKeepEveryValidPart() {
        var rng = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        let now = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)
        let config = LerixConfiguration(
            baseURL: URL(string: "http://x")!,
            project: "demo",
            platform: .android,
            appVersion: "2.3.0",
            build: "1"
        )
        var machine = ReleaseControlMachine(configuration: config, saved: SavedAnswer())
        _ = machine.handle(.launch, now: now)
        _ = machine.handle(
            .completed(.check, .success(TransportResponse(status: 200, body: Self.valid.serialized()))),
            now: now
        )
        var keptRequired = 0
        for round in 0..<3000 {
            let mutated = Self.mutate(Self.valid, &rng)
            var body = mutated.serialized()
            if round % 5 == 0, !body.isEmpty { body = Array(body.prefix(rng.below(body.count))) }  // truncation
            if round % 7 == 0, !body.isEmpty { body[rng.below(body.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            let before = machine.saved
            _ = machine.handle(.refresh, now: now)
            _ = machine.handle(.completed(.check, .success(TransportResponse(status: 200, body: body))), now: now)
            let after = machine.saved
            let state = machine.state(at: now)
            #expect(state.screen != .optionalUpdate || state.optionalUpdate != nil)

            guard let parsed = try? JSON.parse(body), let object = parsed.objectValue else {
                #expect(after.requiredUpdate == before.requiredUpdate, "an unreadable answer changes nothing")
                #expect(after.maintenance == before.maintenance)
                continue
            }
            // Each part: applied when of the right type, else the saved value stays.
            switch object["required_update"] {
            case .null?: #expect(after.requiredUpdate == nil)
            case .object?: #expect(after.requiredUpdate == RequiredUpdate(json: object["required_update"] ?? .null))
            default:
                #expect(after.requiredUpdate == before.requiredUpdate)
                keptRequired += 1
            }
            if let windows = object["maintenance"]?.arrayValue {
                #expect(after.maintenance == windows.compactMap(MaintenanceWindow.init(json:)))
            } else {
                #expect(after.maintenance == before.maintenance)
            }
            if let switches = object["sdk_switch"]?.arrayValue {
                #expect(after.sdkSwitches == switches.compactMap(SDKSwitch.init(json:)))
                #expect(after.sdkSwitches.allSatisfy { !$0.modules.isEmpty || true })
            } else {
                #expect(after.sdkSwitches == before.sdkSwitches)
            }
            if let lifetime = object["lifetime"]?.intValue, lifetime > 0 {
                #expect(after.lifetime == lifetime)
            } else {
                #expect(after.lifetime == before.lifetime)
            }
        }
        #expect(keptRequired > 100, "the fuzzer exercised the keep-saved path")
    }

    @Test func randomBytesNeverCrashTheParser() {
        var rng = SplitMix64(seed: 42)
        var objects = 0
        for _ in 0..<5000 {
            let bytes = (0..<rng.below(64)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if (try? CheckAnswer.parse(bytes)) != nil { objects += 1 }
        }
        #expect(objects >= 0)
        #expect((try? CheckAnswer.parse(Array("{}".utf8)))?.isComplete == false)
    }
}
