import AdapterProtocol
import AdminClient
import Clock
import Foundation
import JSON
import LerixSDK

extension AdapterHost {
    /// Runs one command; the answer's fields besides `id` and `ok`.
    func run(_ request: AdapterRequest, _ table: DeviceTable) throws(CommandError) -> [(String, JSON)] {
        switch request {
        case .hello(let version):
            let supported = AdapterProtocolVersion.supported
            if let version, !supported.contains(version) {
                throw CommandError(
                    AdapterProtocolVersion.mismatch(
                        runner: version,
                        adapter: supported,
                        adapterName: Self.name + " " + LerixConfiguration.currentSDKVersion
                    ),
                    pointer: "/protocol"
                )
            }
            var fields: [(String, JSON)] = [
                ("name", .string(Self.name)), ("version", .string(LerixConfiguration.currentSDKVersion)),
                ("protocols", .array(supported.map { .number(Double($0)) })),
                ("capabilities", .array(Self.capabilities(emulating: options.platforms).map { .string($0.rawValue) })),
            ]
            if let timeout = options.requestTimeoutSeconds {
                fields.append(("request_timeout_seconds", .number(timeout)))
            }
            return fields
        case .create(let id, let now, let config, let replace):
            try create(id, now: now, config: config, replace: replace, in: table)
        case .appEvent(let command, let id):
            let device = try device(id, in: table)
            switch command {
            case .launch: device.launch()
            case .terminate: device.terminate()
            default:
                guard device.isRunning else { break }  // the app is not running: nothing happens
                switch command {
                case .foreground: device.sdk.enterForeground()
                case .background: device.sdk.enterBackground()
                case .push: device.sdk.didReceiveSilentPush()
                case .refresh: device.sdk.refresh { _ in }
                case .later: device.sdk.later()
                case .skip: device.sdk.skip()
                default: throw CommandError("\(command.rawValue) is not an app event")
                }
            }
        case .network(let id, let online):
            try device(id, in: table).setOnline(online)
        case .install(let id, let appVersion, let build):
            try device(id, in: table).install(appVersion: appVersion, build: build)
        case .track(let id, let module, let count):
            try track(device(id, in: table), module: module, count: count)
        case .setClock(let id, let seconds):
            // The user sets the device clock; true time does not move (this adapter's addition).
            try device(id, in: table).clock.setOffset(milliseconds: Int64((seconds * 1000).rounded()))
        case .advance(let to):
            try advance(to: to, table)
        case .nextDeadline:
            return [(AdapterCommand.nextDeadline.rawValue, scheduler.nextDeadline.map { .string($0.rfc3339) } ?? .null)]
        case .state(let id):
            return DeviceState(of: try device(id, in: table)).fields
        }
        return []
    }

    func device(_ id: String, in table: DeviceTable) throws(CommandError) -> AdapterDevice {
        guard let device = table.devices[id] else {
            throw CommandError(
                "unknown device \(id)"
                    + (KeySuggestion.nearest(to: id, in: table.order).map { " (did you mean '\($0)'?)" } ?? ""),
                pointer: "/device"
            )
        }
        return device
    }

    private func create(
        _ id: String,
        now: Instant?,
        config: DeviceConfig,
        replace: Bool,
        in table: DeviceTable
    ) throws(CommandError) {
        if let platforms = options.platforms, !platforms.contains(config.platform) {
            throw CommandError(
                "this adapter emulates \(platforms.joined(separator: ", ")) only (--platforms), not \(config.platform)",
                pointer: "/config/platform"
            )
        }
        // Looked up once: nothing below adds or removes a device before this one goes in.
        let existing = table.devices[id]
        if existing != nil && !replace {
            throw CommandError(
                "device \(id) exists; send \"replace\": true to replace it (its process ends, its counters restart)",
                pointer: "/device"
            )
        }
        if let now {
            if !table.timeKnown {
                scheduler.advance(to: now)  // nothing is scheduled yet: this only sets the time
                table.timeKnown = true
                options.timeMoved?(now)
            } else if now > scheduler.now {
                try advance(to: now, table)
            } else if now < scheduler.now {
                options.log(
                    "adapter: create \(id) at \(now.rfc3339), before true time \(scheduler.now.rfc3339); using true time"
                )
            }
        } else if !table.timeKnown {
            throw CommandError("/now: missing field now (the first create sets true time)", pointer: "/now")
        }
        guard let platform = Platform(rawValue: config.platform) else {
            throw CommandError(
                "/config/platform: unknown platform '\(config.platform)'"
                    + KeySuggestion.hint(for: config.platform, in: AdapterVocabulary.platforms),
                pointer: "/config/platform"
            )
        }
        let flavorName = config.flavor ?? Flavor.native.rawValue
        guard let flavor = Flavor(rawValue: flavorName) else {
            throw CommandError(
                "/config/flavor: unknown flavor '\(flavorName)'"
                    + KeySuggestion.hint(for: flavorName, in: AdapterVocabulary.flavors),
                pointer: "/config/flavor"
            )
        }
        // Read once per distinct text: a fleet's devices all name the same server.
        let baseURL: URL
        if let known = table.baseURLs[config.baseURL] {
            baseURL = known
        } else {
            guard let url = Self.absoluteURL(config.baseURL) else {
                throw CommandError(
                    "/config/base_url: base_url must be an absolute URL such as http://127.0.0.1:8080, not \(config.baseURL)",
                    pointer: "/config/base_url"
                )
            }
            table.baseURLs[config.baseURL] = url
            baseURL = url
        }
        func setting(_ s: DeviceConfig.Setting, default fallback: String) -> String? {
            switch s {
            case .absent: return fallback
            case .none: return nil
            case .value(let text): return text
            }
        }
        let configuration = LerixConfiguration(
            baseURL: baseURL,
            project: config.project,
            platform: platform,
            flavor: flavor,
            appVersion: config.appVersion,
            build: config.build,
            // Absent: this SDK's own; null: none, as the runner's journal lookup reads it.
            sdkName: setting(config.sdk, default: "swift"),
            sdkVersion: setting(config.sdkVersion, default: LerixConfiguration.currentSDKVersion),
            enabled: config.enabled,
            pushToken: config.pushToken
        )
        let storage: any Storage
        if let folder = config.storage, options.disksInMemory {
            let disk = table.disks[folder] ?? InMemoryStorage()
            table.disks[folder] = disk
            storage = disk
        } else if let folder = config.storage {
            do {
                storage = try FileStorage(folder: folder)
            } catch {
                throw CommandError("/config/storage: \(error.message)", pointer: "/config/storage")
            }
        } else {
            storage = InMemoryStorage()
        }
        if let existing {
            existing.terminate()
        } else {
            table.order.append(id)
        }
        let clock = VirtualDeviceClock(
            scheduler: scheduler,
            offsetMilliseconds: Int64((config.clockOffsetSeconds * 1000).rounded())
        )
        let log = options.log
        table.devices[id] = AdapterDevice(
            id: id,
            configuration: configuration,
            clock: clock,
            storage: storage,
            network: network,
            log: { log("device \(id): \($0)") }
        )
    }

    /// `text` as an absolute URL (with a scheme and a host), or nil.
    private static func absoluteURL(_ text: String) -> URL? {
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { return nil }
        return url
    }

    private func track(_ device: AdapterDevice, module name: String, count: Int) throws(CommandError) {
        guard let module = LerixModule(rawValue: name), LerixModule.ingestModules.contains(module) else {
            throw CommandError(
                "/module: unknown module '\(name)'" + KeySuggestion.hint(for: name, in: AdapterVocabulary.modules),
                pointer: "/module"
            )
        }
        guard (0...100_000).contains(count) else {
            throw CommandError("/count: count must be between 0 and 100000", pointer: "/count")
        }
        let items: [JSON] = (0..<count).map { n in
            .object([("device", .string(device.id)), ("module", .string(name)), ("n", .number(Double(n)))])
        }
        device.sdk.track(module, json: items)
    }

    /// Moves true time to `target`, firing every timer due on the way in time order across
    /// devices (and, on a shared scheduler, the server's); timers due at one instant all start
    /// before their requests are awaited.
    func advance(to target: Instant, _ table: DeviceTable) throws(CommandError) {
        guard target >= scheduler.now else {
            throw CommandError(
                "/to: time cannot go backwards: \(target.rfc3339) is before \(scheduler.now.rfc3339)",
                pointer: "/to"
            )
        }
        table.timeKnown = true
        scheduler.advance(to: target) { instant, due in
            timeMoved(to: instant)
            drainPushes(table)
            for (n, work) in due.enumerated() {
                work.run()
                if n % 48 == 47 { network.startSending() }
            }
            network.runUntilIdle()
            drainPushes(table)
        }
        timeMoved(to: target)
        drainPushes(table)
    }

    private func timeMoved(to instant: Instant) {
        options.timeMoved?(instant)
        guard let base = options.serverClockURL else { return }
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        if let token = options.adminToken { headers.append(("Authorization", "Bearer " + token)) }
        let call = Admin.setClock(to: instant)
        let body = call.body?.serialized() ?? []
        let log = options.log
        network.send(TransportRequest(method: call.method, url: base + call.path, headers: headers, body: body)) {
            result in
            switch result {
            case .success(let response) where (200..<300).contains(response.status): break
            case .success(let response): log("adapter: setting the server clock answered \(response.status)")
            case .failure(let error): log("adapter: setting the server clock failed: \(error)")
            }
        }
        network.runUntilIdle()
    }
}
