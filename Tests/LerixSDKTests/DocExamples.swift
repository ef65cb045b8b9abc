// swift-format-ignore-file
// Verbatim copies of documentation examples, laid out as the docs show them (DocExamplesTests).
import Foundation
import LerixSDK

// Every `swift` example in the SDK's public doc comments, verbatim, so the compiler checks
// them (DocExamplesTests checks they are here). They are compiled, never run: some talk to
// api.lerix.dev. The functions below stand in for the app's own code the examples call.

func render(_ screen: LerixState.Screen) {}
func showBlockingUpdate(_ update: RequiredUpdate?) {}
func showBlockingUpdate(_ message: String?, store: String?) {}
func showMaintenance(_ window: MaintenanceWindow?) {}
func showMaintenance(message: String?, until end: Date) {}
func showPrompt(_ update: OptionalUpdate?, later: () -> Void, skip: () -> Void) {}
func showPrompt(_ message: String?, store: String?, later: () -> Void, skip: () -> Void) {}

enum DocExamples {
    static func lerix(applicationSupport: String) throws {
        let lerix = Lerix(
            configuration: LerixConfiguration(baseURL: URL(string: "https://api.lerix.dev")!, project: "demo",
                                              platform: .ios, appVersion: "2.3.0", build: "41"),
            storage: try FileStorage(folder: applicationSupport + "/Lerix"))
        let observation = lerix.observe { state in render(state.screen) }
        lerix.start()                       // saved answer first, then a check
        lerix.enterForeground()             // scene phase changes
        lerix.enterBackground()
        lerix.didReceiveSilentPush()        // silent push handler
        lerix.refresh { fresh in render(fresh.screen) }  // checks now
        if !lerix.isPaused(.analytics) { lerix.track(.analytics, ["event": "opened"]) }
        _ = observation
    }

    static func lerixAsync(lerix: Lerix) async {
        let state = await lerix.start()     // the launch check has been answered (or failed)
        _ = state
    }

    static func configuration(folder: String) throws {
        let configuration = LerixConfiguration(
            baseURL: URL(string: "https://api.lerix.dev")!, project: "demo",
            platform: .ios, appVersion: "2.3.0", build: "41")
        let lerix = Lerix(configuration: configuration, storage: try FileStorage(folder: folder))
        lerix.start()
    }

    static func state(lerix: Lerix) {
        switch lerix.state.screen {
        case .requiredUpdate: showBlockingUpdate(lerix.state.requiredUpdate)
        case .maintenance:    showMaintenance(lerix.state.activeMaintenance)
        case .optionalUpdate: showPrompt(lerix.state.optionalUpdate, later: lerix.later, skip: lerix.skip)
        case .none:           break
        }
    }

    static func updates(lerix: Lerix) {
        if let update = lerix.state.requiredUpdate { showBlockingUpdate(update.message, store: update.storeURL) }
        if lerix.state.screen == .optionalUpdate, let update = lerix.state.optionalUpdate {
            showPrompt(update.message, store: update.storeURL, later: lerix.later, skip: lerix.skip)
        }
        if let window = lerix.state.activeMaintenance {
            showMaintenance(message: window.message, until: window.effectiveEndsAt)
        }
        if let failure = lerix.state.lastCheckFailure, failure.kind == .status {
            print("the server answered \(failure.status ?? 0): \(failure.reason)")
        }
    }

    static func track(lerix: Lerix) {
        lerix.track(.analytics, ["event": "purchase", "amount": 9.99, "items": ["sku-1", "sku-2"], "coupon": nil])
        lerix.track(.errors, ["message": "decode failed", "fatal": false, "line": 42])
    }

    static func clocks(configuration: LerixConfiguration, storage: any Storage) {
        do {
            let lerix = Lerix(configuration: configuration, clock: SystemDeviceClock(), storage: storage)
            _ = lerix
        }
        do {
            let clock = SystemDeviceClock()
            clock.schedule(after: .seconds(60)) { print("a minute later") }
        }
        do {
            let clock = ManualDeviceClock(now: Date(timeIntervalSince1970: 1_796_209_200))
            let lerix = Lerix(configuration: configuration, clock: clock, storage: InMemoryStorage())
            lerix.start()
            clock.advance(by: .seconds(60))           // a poll due now runs before this returns
            clock.setTime(clock.now - 2 * 3600)        // the user sets the clock back two hours
        }
    }

    static func storageAndTransports(config: LerixConfiguration, clock: ManualDeviceClock, net: InMemoryTransport,
                                     disk: InMemoryStorage, applicationSupport: String) throws {
        do {
            let storage = try FileStorage(folder: applicationSupport + "/Lerix")
            _ = storage
        }
        do {
            let disk = InMemoryStorage()
            let first = Lerix(configuration: config, clock: clock, transport: net, storage: disk)
            first.shutdown()                  // the process ends; the disk stays
            let second = Lerix(configuration: config, clock: clock, transport: net, storage: disk)
            _ = second
        }
        do {
            let transport = InMemoryTransport { request in
                .success(TransportResponse(status: 304, headers: [("ETag", #"W/"1""#)]))
            }
            _ = transport
        }
        do {
            let lerix = Lerix(configuration: config, transport: URLSessionTransport(timeout: .seconds(10)), storage: disk)
            _ = lerix
        }
    }
}
