import Adapter
import Clock
import JSON
import LerixSDK
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The adapter and the real server, both spawned, talking over loopback in virtual time.
@Suite(.serialized) struct AdapterIntegrationTests {
    static let start = "2026-12-02T11:00:00.000Z"

    /// A server on a manual clock at `start`, an adapter that moves that clock as it fires timers.
    final class World {
        let server: ServerProcess
        let adapter: AdapterProcess
        let admin: AdminClient
        let baseURL: String
        let folder: String

        init() throws {
            server = try ServerProcess.start([
                "serve", "--port", "0", "--clock", "manual", "--start-time", AdapterIntegrationTests.start, "--quiet",
            ])
            baseURL = "http://127.0.0.1:\(server.port)"
            adapter = try AdapterProcess(["--server-clock", baseURL])
            admin = AdminClient(baseURL: baseURL)
            var template = Array("/tmp/lerix-adapter-it-XXXXXX".utf8CString)
            folder = template.withUnsafeMutableBufferPointer { b -> String in
                guard let base = b.baseAddress, let made = mkdtemp(base) else { return "/tmp/lerix-adapter-it" }
                return String(cString: made)
            }
        }

        deinit {
            adapter.stop()
            server.stop()
        }

        func create(_ device: String, version: String = "2.3.0", offset: Double = 0) {
            let config: JSON = [
                "base_url": .string(baseURL), "project": "demo", "platform": "ios", "app_version": .string(version),
                "build": "1", "sdk": "swift", "sdk_version": "1.4.0", "storage": .string(folder + "/" + device),
                "clock_offset_seconds": .number(offset),
            ]
            adapter.send(
                "create",
                [("device", .string(device)), ("now", .string(AdapterIntegrationTests.start)), ("config", config)]
            )
        }

        func advance(to offsetSeconds: Int64) {
            let target = Instant(rfc3339: AdapterIntegrationTests.start)?.adding(seconds: offsetSeconds)
            adapter.send("advance", [("to", .string(target?.rfc3339 ?? ""))])
        }

        func at(_ offsetSeconds: Int64) -> JSON {
            .string(Instant(rfc3339: AdapterIntegrationTests.start)?.adding(seconds: offsetSeconds).rfc3339 ?? "")
        }

        func state(_ device: String) -> JSON { adapter.send("state", [("device", .string(device))]) }
        func send(_ command: String, _ device: String, _ more: [(String, JSON)] = []) {
            adapter.send(command, [("device", .string(device))] + more)
        }
    }

    @Test func requiredUpdateLiftedReachesAnOpenAppWithinAMinute() throws {
        let world = try World()
        let rule = world.admin.call(
            "POST",
            "/admin/projects/demo/rules",
            ["type": "required_update", "below": "2.4.0"]
        )
        #expect(rule.status == 201 || rule.status == 200)
        let id = rule.json["id"]?.stringValue ?? ""
        world.create("phone")
        world.send("launch", "phone")
        #expect(world.state("phone")["screen"] == "required_update")
        world.advance(to: 300)
        #expect(world.state("phone")["polling"] == true, "a recent change keeps the lifetime at 60 s")
        #expect(world.admin.call("DELETE", "/admin/projects/demo/rules/\(id)").status == 204)
        world.advance(to: 359)
        world.advance(to: 360)
        let state = world.state("phone")
        #expect(state["screen"] == "none")
        #expect((state["checks"]?.intValue ?? 0) >= 6)
        #expect((state["not_modified"]?.intValue ?? 0) >= 4)
    }

    @Test func maintenanceStartsAndEndsOfflineOnADeviceWhoseClockIsAnHourWrong() throws {
        let world = try World()
        let window = world.admin.call(
            "POST",
            "/admin/projects/demo/rules",
            [
                "type": "maintenance", "starts_at": world.at(1800), "ends_at": world.at(5400),
                "message": "database upgrade",
            ]
        )
        #expect(window.status == 201 || window.status == 200)
        world.create("phone", offset: -3600)
        world.send("launch", "phone")
        world.send("network", "phone", [("online", false)])
        #expect(world.state("phone")["screen"] == "none")
        world.advance(to: 1799)
        #expect(world.state("phone")["screen"] == "none")
        world.advance(to: 1800)
        #expect(world.state("phone")["screen"] == "maintenance")
        world.advance(to: 5399)
        #expect(world.state("phone")["screen"] == "maintenance")
        world.advance(to: 5400)
        let state = world.state("phone")
        #expect(state["screen"] == "none")
        #expect(state["maintenance"] == [])
        #expect(state["checks"] == 1)
    }

    @Test func aNewVersionInstalledOfflineIsNotBlockedByItsOldAnswer() throws {
        let world = try World()
        _ = world.admin.call("POST", "/admin/projects/demo/rules", ["type": "required_update", "below": "2.4.0"])
        world.create("phone")
        world.send("launch", "phone")
        #expect(world.state("phone")["screen"] == "required_update")
        world.send("network", "phone", [("online", false)])
        world.send("terminate", "phone")
        world.adapter.send("install", [("device", "phone"), ("app_version", "2.4.0"), ("build", "2")])
        world.send("launch", "phone")
        #expect(world.state("phone")["screen"] == "none")
        world.send("network", "phone", [("online", true)])
        let state = world.state("phone")
        #expect(state["screen"] == "none")
        #expect(state["checks"] == 2)
        let journal = world.admin.call("GET", "/admin/requests?project=demo&limit=1")
        #expect(journal.json.serializedString.contains("2.4.0"))
    }

    @Test func anSDKSwitchQueuesModuleItemsThenFlushesThemToTheIngestEndpoint() throws {
        let world = try World()
        let switchRule = world.admin.call(
            "POST",
            "/admin/projects/demo/rules",
            [
                "type": "sdk_switch", "sdks": [["name": "swift"]], "modules": ["analytics"], "ends_at": world.at(600),
            ]
        )
        #expect(switchRule.status == 201 || switchRule.status == 200)
        world.create("phone")
        world.send("launch", "phone")
        world.send("track", "phone", [("module", "analytics"), ("count", 5)])
        world.send("track", "phone", [("module", "errors"), ("count", 2)])
        var state = world.state("phone")
        #expect(state["paused_modules"] == ["analytics"])
        #expect(state["queued"]?["analytics"] == 5)
        var ingest = world.admin.call("GET", "/admin/projects/demo/ingest").json["ingest"]
        #expect(ingest?["analytics"] == nil || ingest?["analytics"] == 0)
        #expect(ingest?["errors"] == 2)
        world.advance(to: 600)
        state = world.state("phone")
        #expect(state["paused_modules"] == [])
        #expect(state["queued"]?["analytics"] == 0)
        #expect(state["sent"]?["analytics"] == 5)
        ingest = world.admin.call("GET", "/admin/projects/demo/ingest").json["ingest"]
        #expect(ingest?["analytics"] == 5)
    }

    @Test func faultsReachOnlyTheCheckTheyHitAndWrongTypesKeepTheSavedParts() throws {
        let world = try World()
        _ = world.admin.call("POST", "/admin/projects/demo/rules", ["type": "required_update", "below": "2.4.0"])
        world.create("phone")
        world.send("launch", "phone")
        world.advance(to: 10)
        #expect(world.admin.call("POST", "/admin/projects/demo/faults", ["kind": "reset", "count": 1]).status < 300)
        world.send("refresh", "phone")
        var state = world.state("phone")
        #expect(state["last_success"] == world.at(0), "the reset check failed")
        #expect(state["checks"] == 2)
        world.send("refresh", "phone")
        #expect(world.state("phone")["last_success"] == world.at(10))
        #expect(
            world.admin.call("POST", "/admin/projects/demo/faults", ["kind": "wrong_types", "count": 1]).status < 300
        )
        world.advance(to: 20)
        world.send("refresh", "phone")
        state = world.state("phone")
        #expect(state["screen"] == "required_update")
        #expect(state["etag"] == .null)
        world.send("refresh", "phone")
        #expect(world.state("phone")["etag"] != .null)
    }

    @Test func fiftyDevicesPollingTogetherShareAFewPipelinedConnections() throws {
        let world = try World()
        _ = world.admin.call(
            "POST",
            "/admin/projects/demo/rules",
            [
                "type": "maintenance", "starts_at": world.at(7200), "ends_at": world.at(9000),
            ]
        )  // a change: answers live 60 s
        for n in 0..<50 { world.create("d\(n)", offset: Double(n % 3)) }
        for n in 0..<50 { world.send("launch", "d\(n)") }
        world.advance(to: 600)
        var total = 0
        for n in 0..<50 { total += world.state("d\(n)")["checks"]?.intValue ?? 0 }
        #expect(total == 50 * 11)
        let journal =
            world.admin.call("GET", "/admin/requests?project=demo&limit=1000").json["requests"]?.arrayValue ?? []
        #expect(journal.count >= 500)
    }

    @Test func theSDKsDefaultURLSessionTransportWorksAgainstTheRealServerInProcess() throws {
        let server = try ServerProcess.start([
            "serve", "--port", "0", "--clock", "manual", "--start-time", Self.start, "--quiet",
        ])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let admin = AdminClient(baseURL: base)
        _ = admin.call("POST", "/admin/projects/demo/rules", ["type": "required_update", "below": "2.4.0"])
        var options = AdapterHost.Options()
        options.serverClockURL = base
        let host = AdapterHost(network: TransportNetwork(URLSessionTransport(timeout: .seconds(10))), options: options)
        let driver = Driver(host)
        driver.send(
            "create",
            [
                ("device", "a"), ("now", .string(Self.start)),
                (
                    "config",
                    [
                        "base_url": .string(base), "project": "demo", "platform": "macos", "app_version": "2.3.0",
                        "build": "7",
                    ]
                ),
            ]
        )
        driver.send("launch", [("device", "a")])
        driver.advance(seconds: 120)
        let state = driver.state("a")
        #expect(state["screen"] == "required_update")
        #expect(state["checks"] == 3)
        #expect(state["not_modified"] == 2, "URLSession hands the 304 through")
        driver.send("track", [("device", "a"), ("module", "surveys"), ("count", 2)])
        #expect(admin.call("GET", "/admin/projects/demo/ingest").json["ingest"]?["surveys"] == 2)
    }

    /// Issue 11: a check that cannot succeed is visible in the device state, kind and reason.
    @Test func checksThatCannotSucceedSayWhatFailedAndWhy() throws {
        let world = try World()
        let nobody = try ServerProcess.start(["serve", "--port", "0", "--quiet"])
        let silentPort = nobody.port
        nobody.stop()  // its port now has nothing listening
        let cases: [(String, String, String, Int?, String)] = [
            ("refused", "http://127.0.0.1:\(silentPort)", "demo", nil, "connect"),
            ("unknown-project", world.baseURL, "nope", 404, "nope"),
            ("https", "https://127.0.0.1:\(world.server.port)", "demo", nil, "TLS"),
        ]
        for (device, base, project, status, word) in cases {
            world.adapter.send(
                "create",
                [
                    ("device", .string(device)), ("now", .string(Self.start)),
                    (
                        "config",
                        [
                            "base_url": .string(base), "project": .string(project), "platform": "ios",
                            "app_version": "2.3.0",
                        ]
                    ),
                ]
            )
            world.send("launch", device)
            let state = world.state(device)
            #expect(state["checks"] == 1, "\(device)")
            #expect(state["last_success"] == .null)
            #expect(state["failed_checks"] == 1)
            let failure = state["last_failure"]
            #expect(
                failure?["kind"]?.stringValue == (status == nil ? "connection" : "status"),
                "\(device): \(failure?.serializedString ?? "none")"
            )
            #expect(failure?["status"] == (status.map { .number(Double($0)) } ?? .null))
            #expect(
                failure?["reason"]?.stringValue?.contains(word) == true,
                "\(device): \(failure?.serializedString ?? "none")"
            )
        }
    }
}
