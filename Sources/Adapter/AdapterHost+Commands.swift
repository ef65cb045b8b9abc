import Foundation
import Clock
import JSON
import LerixSDK

extension AdapterHost {
    /// Runs one command; the answer's fields besides `id` and `ok`.
    func run(_ name: String, _ fields: CommandFields) throws(CommandError) -> [(String, JSON)] {
        switch name {
        case "hello":
            return [
                ("name", .string(Self.name)), ("version", .string(LerixConfiguration.currentSDKVersion)),
                ("capabilities", .array(Self.capabilities.map(JSON.string))),
            ]
        case "create":
            try create(fields)
            return []
        case "launch":
            try device(fields).launch()
            return []
        case "foreground":
            let device = try device(fields)
            if device.isRunning { device.sdk.enterForeground() }
            return []
        case "background":
            let device = try device(fields)
            if device.isRunning { device.sdk.enterBackground() }
            return []
        case "push":
            let device = try device(fields)
            if device.isRunning { device.sdk.didReceiveSilentPush() }
            return []
        case "refresh":
            let device = try device(fields)
            if device.isRunning { device.sdk.refresh { _ in } }
            return []
        case "network":
            let device = try device(fields)
            device.setOnline(try fields.bool("online"))
            return []
        case "terminate":
            try device(fields).terminate()
            return []
        case "install":
            let device = try device(fields)
            guard fields.object["app_version"] != nil else { throw CommandError("missing field app_version") }
            device.install(appVersion: try fields.optionalString("app_version"), build: try fields.optionalString("build"))
            return []
        case "later":
            let device = try device(fields)
            if device.isRunning { device.sdk.later() }
            return []
        case "skip":
            let device = try device(fields)
            if device.isRunning { device.sdk.skip() }
            return []
        case "track":
            return try track(fields)
        case "set_clock":
            // The user sets the device clock; true time does not move (this adapter's addition).
            let device = try device(fields)
            guard fields.has("clock_offset_seconds") else { throw CommandError("missing field clock_offset_seconds") }
            let seconds = try fields.number("clock_offset_seconds", default: 0)
            device.clock.setOffset(milliseconds: Int64((seconds * 1000).rounded()))
            return []
        case "advance":
            try advance(to: try fields.time("to"))
            return []
        case "next_deadline":
            return [("next_deadline", scheduler.nextDeadline.map { .string($0.rfc3339) } ?? .null)]
        case "state":
            return stateFields(try device(fields))
        default:
            throw CommandError("unknown command \(name)")
        }
    }

    private func device(_ fields: CommandFields) throws(CommandError) -> AdapterDevice {
        let id = try fields.string("device")
        guard let device = devices[id] else { throw CommandError("unknown device \(id)") }
        return device
    }

    private func create(_ fields: CommandFields) throws(CommandError) {
        let id = try fields.string("device")
        let replace = try fields.bool("replace", default: false)
        if devices[id] != nil && !replace {
            throw CommandError("device \(id) exists; send \"replace\": true to replace it (its process ends, its counters restart)")
        }
        if fields.has("now") {
            let now = try fields.time("now")
            if !timeKnown {
                scheduler.advance(to: now)   // nothing is scheduled yet: this only sets the time
                timeKnown = true
                options.timeMoved?(now)
            } else if now > scheduler.now {
                try advance(to: now)
            } else if now < scheduler.now {
                options.log("adapter: create \(id) at \(now.rfc3339), before true time \(scheduler.now.rfc3339); using true time")
            }
        } else if !timeKnown {
            throw CommandError("missing field now (the first create sets true time)")
        }
        let config = try fields.object("config")
        guard let platform = Platform(rawValue: try config.string("platform")) else {
            throw CommandError("config.platform must be one of ios, android, macos, web")
        }
        let flavorName = try config.optionalString("flavor") ?? Flavor.native.rawValue
        guard let flavor = Flavor(rawValue: flavorName) else {
            throw CommandError("config.flavor must be native or flutter, not \(flavorName)")
        }
        let baseText = try config.string("base_url")
        guard let baseURL = URL(string: baseText), baseURL.scheme != nil, baseURL.host != nil else {
            throw CommandError("config.base_url must be an absolute URL such as http://127.0.0.1:8080, not \(baseText)")
        }
        let configuration = LerixConfiguration(
            baseURL: baseURL, project: try config.string("project"), platform: platform,
            flavor: flavor, appVersion: try config.optionalString("app_version"), build: try config.optionalString("build"),
            // Absent: this SDK's own; null: none, as the runner's journal lookup reads it.
            sdkName: try config.optionalString("sdk", default: "swift"),
            sdkVersion: try config.optionalString("sdk_version", default: LerixConfiguration.currentSDKVersion),
            enabled: try config.bool("enabled", default: true), pushToken: try config.optionalString("push_token"))
        let offsetSeconds = try config.number("clock_offset_seconds", default: 0)
        let storage: any Storage
        if let folder = try config.optionalString("storage") {
            do {
                storage = try FileStorage(folder: folder)
            } catch {
                throw CommandError("config.storage: \(error.message)")
            }
        } else {
            storage = InMemoryStorage()
        }
        if let existing = devices[id] {
            existing.terminate()
        } else {
            deviceOrder.append(id)
        }
        let clock = VirtualDeviceClock(scheduler: scheduler, offsetMilliseconds: Int64((offsetSeconds * 1000).rounded()))
        let log = options.log
        devices[id] = AdapterDevice(id: id, configuration: configuration, clock: clock, storage: storage,
                                    network: network, log: { log("device \(id): \($0)") })
    }

    private func track(_ fields: CommandFields) throws(CommandError) -> [(String, JSON)] {
        let device = try device(fields)
        let name = try fields.string("module")
        guard let module = LerixModule(rawValue: name), LerixModule.ingestModules.contains(module) else {
            throw CommandError("module must be one of errors, analytics, tracing, feedback, surveys, not \(name)")
        }
        let count = try fields.int("count")
        guard (0...100_000).contains(count) else { throw CommandError("count must be between 0 and 100000") }
        let items: [JSON] = (0..<count).map { n in
            .object([("device", .string(device.id)), ("module", .string(name)), ("n", .number(Double(n)))])
        }
        device.sdk.track(module, json: items)
        return []
    }

    /// Moves true time to `target`, firing every timer due on the way in time order across
    /// devices (and, on a shared scheduler, the server's); timers due at one instant all start
    /// before their requests are awaited.
    func advance(to target: Instant) throws(CommandError) {
        guard target >= scheduler.now else {
            throw CommandError("time cannot go backwards: \(target.rfc3339) is before \(scheduler.now.rfc3339)")
        }
        timeKnown = true
        scheduler.advance(to: target) { instant, due in
            timeMoved(to: instant)
            drainPushes()
            for (n, work) in due.enumerated() {
                work.run()
                if n % 48 == 47 { network.startSending() }
            }
            network.runUntilIdle()
            drainPushes()
        }
        timeMoved(to: target)
        drainPushes()
    }

    private func timeMoved(to instant: Instant) {
        options.timeMoved?(instant)
        guard let base = options.serverClockURL else { return }
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        if let token = options.adminToken { headers.append(("Authorization", "Bearer " + token)) }
        let body = JSON.object([("set", .string(instant.rfc3339))]).serialized()
        let log = options.log
        network.send(TransportRequest(method: "POST", url: base + "/admin/clock", headers: headers, body: body)) { result in
            switch result {
            case .success(let response) where (200..<300).contains(response.status): break
            case .success(let response): log("adapter: setting the server clock answered \(response.status)")
            case .failure(let error): log("adapter: setting the server clock failed: \(error)")
            }
        }
        network.runUntilIdle()
    }
}
