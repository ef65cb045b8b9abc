import AdapterProtocol
import Clock
import JSON
import Testing
@testable import Adapter

/// The one vocabulary of the adapter protocol: what the runner encodes is what the host decodes,
/// and the host answers exactly the names the runner checks against.
@Suite struct AdapterVocabularyTests {
    static let now = Instant(rfc3339: "2026-12-02T11:00:00.000Z")!
    static let config = DeviceConfig(baseURL: "http://127.0.0.1:8080", project: "demo", platform: "android", flavor: "flutter",
                                     appVersion: "2.3.0", build: nil, sdk: .value("kotlin"), sdkVersion: .none, storage: "/tmp/a",
                                     pushToken: "tok", enabled: false, clockOffsetSeconds: -90)

    static let everyRequest: [AdapterRequest] = [
        .hello, .nextDeadline, .create(device: "a", now: now, config: config, replace: true),
        .create(device: "b", now: nil, config: DeviceConfig(baseURL: "http://x", project: "p", platform: "ios")),
        .network(device: "a", online: false), .install(device: "a", appVersion: nil, build: "7"),
        .track(device: "a", module: "analytics", count: 3), .setClock(device: "a", clockOffsetSeconds: 7200),
        .advance(to: now.adding(seconds: 60)), .state(device: "a"),
    ] + AdapterCommand.appEvents.map { .appEvent($0, device: "a") }

    @Test func everyRequestSurvivesTheWireUnchanged() throws {
        for request in Self.everyRequest {
            let line = request.json(id: 4).serializedString
            let object = try #require(try JSON.parse(Array(line.utf8)).objectValue)
            #expect(object["id"] == 4 && object["cmd"] == .string(request.command.rawValue))
            #expect(try AdapterRequest(decoding: object) == request, "\(line)")
        }
        #expect(Set(Self.everyRequest.map(\.command)) == Set(AdapterCommand.allCases), "every command has a request")
    }

    @Test func nullAndAbsentStayApartInTheConfig() throws {
        let json = Self.config.json
        #expect(json["sdk_version"] == .null && json["sdk"] == "kotlin")
        #expect(DeviceConfig(baseURL: "http://x", project: "p", platform: "ios").json["sdk"] == nil, "absent: the adapter's default")
    }

    @Test func refusalsNameTheField() {
        func refusal(_ json: JSON) -> String? {
            do { _ = try AdapterRequest(decoding: json.objectValue ?? JSONObject()); return nil } catch { return error.message }
        }
        #expect(refusal(["cmd": "fly"]) == "unknown command fly")
        #expect(refusal(["cmd": "set_clock", "device": "a"]) == "missing field clock_offset_seconds")
        #expect(refusal(["cmd": "create", "device": "a", "config": ["project": "p", "platform": "ios"]]) == "missing field config.base_url")
        #expect(refusal(["cmd": "advance", "to": "soon"])?.hasPrefix("to must be an RFC 3339 time") == true)
    }

    @Test func theHostAnswersHelloAndStateInTheVocabulary() {
        let driver = Driver(Backend().makeHost())
        let capabilities = driver.send("hello")["capabilities"]?.arrayValue?.compactMap(\.stringValue)
        #expect(capabilities == AdapterCapability.all.map(\.rawValue))
        #expect(AdapterCapability.all.contains(.platform("web")) && AdapterCapability.all.contains(.flavor("flutter")))
        driver.create("a")
        let state = driver.send("state", [("device", "a")]).objectValue
        #expect(state.map { Array($0.keys.filter { $0 != "id" && $0 != "ok" }) } == DeviceStateField.allCases.map(\.rawValue))
        #expect(state?["queued"]?.objectValue.map { Array($0.keys) } == DeviceStateField.queued.nestedKeys)
    }
}
