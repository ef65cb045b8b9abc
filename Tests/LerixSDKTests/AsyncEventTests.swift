import Foundation
import LerixSDK
import Testing

/// Each event's `async` form returns once the work it caused has finished, so a test reads the
/// state right after `await`, with no sleeps, even when answers arrive later on other threads.
@Suite struct AsyncEventTests {
    func world() -> (World, Lerix) {
        let world = World()
        let sdk = Lerix(
            configuration: world.config(pushToken: "tok-1"),
            clock: world.device,
            transport: LaterTransport { world.server.answer($0) },
            storage: world.storage
        )
        return (world, sdk)
    }

    @Test func startReturnsOnceTheLaunchCheckAndTheTokenRegistrationHaveFinished() async {
        let (world, sdk) = world()
        world.server.update { $0.requiredUpdate = ["rule": "r", "below": "9.0.0"] }
        let state = await sdk.start()
        #expect(state.screen == .requiredUpdate)
        #expect(state.lastSuccess != nil)
        #expect(world.server.checks == 1)
        #expect(world.server.contents.withLock { $0.tokens } == ["tok-1"])
    }

    @Test func foregroundDuringTheLaunchCheckJoinsItAndReturnsWithItsAnswer() async {
        let (world, sdk) = world()
        withoutWaiting { sdk.start() }
        let state = await sdk.enterForeground()
        #expect(state.lastSuccess != nil)
        #expect(world.server.checks == 1)
    }

    @Test func trackReturnsOnceTheItemsAreSent() async {
        let (world, sdk) = world()
        await sdk.start()
        let state = await sdk.track(.analytics, [["event": "a"], ["event": "b"]])
        #expect(state.queued.isEmpty)
        #expect(world.server.ingest == ["analytics": 2])
        #expect(sdk.statistics.sent == [.analytics: 2])
    }

    @Test func pushAndReachabilityReturnWithTheirCheckDone() async {
        let (world, sdk) = world()
        await sdk.start()
        world.server.update { $0.maintenance = [["rule": "m", "starts_at": world.at(-1), "ends_at": world.at(600)]] }
        var state = await sdk.didReceiveSilentPush()
        #expect(state.screen == .maintenance)
        await sdk.networkReachabilityChanged(isReachable: false)
        withoutWaiting { sdk.didReceiveSilentPush() }  // missed offline
        world.server.update { $0.maintenance = [] }
        state = await sdk.networkReachabilityChanged(isReachable: true)
        #expect(state.screen == .none)
        #expect(world.server.checks == 3)
    }

    @Test func theLastFailureSaysWhyInTheState() async {
        let (world, sdk) = world()
        world.server.update {
            $0.status = 404
            $0.rawBody = nil
        }
        let state = await sdk.start()
        #expect(state.lastCheckFailure?.kind == .status)
        #expect(state.lastCheckFailure?.status == 404)
        #expect(state.lastCheckFailure?.at == world.device.now)
        #expect(state.lastSuccess == nil)
    }
}

/// In async code the `async` form of an event is the one Swift picks; a synchronous closure
/// calls the plain form, which returns at once.
func withoutWaiting(_ event: () -> Void) { event() }
