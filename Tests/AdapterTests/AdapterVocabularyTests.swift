import AdapterProtocol
import Clock
import JSON
import Testing

@testable import Adapter

/// The one vocabulary of the adapter protocol: what the runner encodes is what the host decodes,
/// and the host answers exactly the names the runner checks against.
@Suite struct AdapterVocabularyTests {
    static let now = Instant(rfc3339: "2026-12-02T11:00:00.000Z")!
    static let config = DeviceConfig(
        baseURL: "http://127.0.0.1:8080",
        project: "demo",
        platform: "android",
        flavor: "flutter",
        appVersion: "2.3.0",
        build: nil,
        sdk: .value("kotlin"),
        sdkVersion: .none,
        storage: "/tmp/a",
        pushToken: "tok",
        enabled: false,
        clockOffsetSeconds: -90
    )

    static let everyRequest: [AdapterRequest] =
        [
            .hello(protocolVersion: 1), .hello(protocolVersion: nil), .nextDeadline,
            .create(device: "a", now: now, config: config, replace: true),
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
        #expect(
            DeviceConfig(baseURL: "http://x", project: "p", platform: "ios").json["sdk"] == nil,
            "absent: the adapter's default"
        )
    }

    @Test func refusalsNameTheField() {
        func refusal(_ json: JSON) -> String? {
            do {
                _ = try AdapterRequest(decoding: json.objectValue ?? JSONObject())
                return nil
            } catch { return error.message }
        }
        #expect(refusal(["cmd": "fly"]) == "unknown command fly")
        #expect(refusal(["cmd": "lanch", "device": "a"]) == "unknown command lanch (did you mean 'launch'?)")
        #expect(
            refusal(["cmd": "set_clock", "device": "a"]) == "/clock_offset_seconds: missing field clock_offset_seconds"
        )
        #expect(
            refusal(["cmd": "create", "device": "a", "config": ["project": "p", "platform": "ios"]])
                == "/config/base_url: missing field base_url"
        )
        #expect(refusal(["cmd": "advance", "to": "soon"])?.hasPrefix("/to: to must be an RFC 3339 time") == true)
        #expect(
            refusal([
                "cmd": "create", "device": "a", "config": ["base_url": "http://x", "project": "p", "platform": 7],
            ])
                == "/config/platform: platform must be a string, not number"
        )
    }

    /// Every command, and `create`'s config, refuse a key they do not take through one check,
    /// with its pointer and the nearest key: a misspelt field never falls back to a default.
    @Test func everyCommandRefusesAnUnknownKeyWithItsPointer() throws {
        for request in Self.everyRequest {
            var object = try #require(request.json(id: 1).objectValue)
            object["devise"] = "a"
            do {
                _ = try AdapterRequest(decoding: object)
                Issue.record("\(request.command.rawValue) took an unknown key")
            } catch {
                #expect(error.pointer == "/devise", "\(request.command.rawValue): \(error.message)")
                #expect(
                    error.message.hasPrefix(
                        "/devise: unknown field 'devise' in a `\(request.command.rawValue)` request"
                    ),
                    "\(error.message)"
                )
                if request.command.fieldNames.contains("device") {
                    #expect(error.message.hasSuffix("(did you mean 'device'?)"), "\(error.message)")
                }
            }
        }
        var create = try #require(
            AdapterRequest.create(device: "a", now: Self.now, config: Self.config).json(id: 1).objectValue
        )
        var config = try #require(create["config"]?.objectValue)
        config["plattform"] = "ios"
        create["config"] = .object(config)
        do {
            _ = try AdapterRequest(decoding: create)
            Issue.record("a misspelt config key was taken")
        } catch {
            #expect(
                error.message
                    == "/config/plattform: unknown field 'plattform' in `create`'s config (did you mean 'platform'?)"
            )
            #expect(error.pointer == "/config/plattform")
        }
    }

    @Test func theHostAnswersHelloAndStateInTheVocabulary() {
        let driver = Driver(Backend().makeHost())
        let capabilities = driver.send("hello")["capabilities"]?.arrayValue?.compactMap(\.stringValue)
        #expect(capabilities == AdapterCapability.all.map(\.rawValue))
        #expect(AdapterCapability.all.contains(.platform("web")) && AdapterCapability.all.contains(.flavor("flutter")))
        driver.create("a")
        let state = driver.send("state", [("device", "a")]).objectValue
        #expect(
            state.map { Array($0.keys.filter { $0 != "id" && $0 != "ok" }) }
                == DeviceStateField.allCases.map(\.rawValue)
        )
        #expect(state?["queued"]?.objectValue.map { Array($0.keys) } == DeviceStateField.queued.nestedKeys)
    }
}
