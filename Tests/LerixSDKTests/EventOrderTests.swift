import Foundation
import JSON
import LerixSDK
import Testing

/// Events that arrive while an event is being handled wait, and are handled in the order they
/// came: the first one waits in the state itself, the ones after it in the mailbox, and the
/// completion a transport gives inline comes after them all.
@Suite struct EventOrderTests {
    @Test func eventsThatArriveDuringASendAreHandledInTheOrderTheyCame() async throws {
        let world = World()
        let sdk = Locked<Lerix?>(nil)
        let burstSent = Locked(false)
        // While the launch's check is being sent, three tracks and a push arrive from inside the
        // transport (the drainer's own thread); then the check is answered inline.
        let transport = InMemoryTransport { request in
            if request.url.contains("/release-control"), !burstSent.withLock({ $0 }) {
                burstSent.withLock { $0 = true }
                let lerix = sdk.withLock { $0 }
                lerix?.track(.analytics, [["n": 1]])
                lerix?.track(.analytics, [["n": 2], ["n": 3]])
                lerix?.didReceiveSilentPush()
                lerix?.track(.analytics, [["n": 4]])
            }
            return world.server.answer(request)
        }
        let lerix = Lerix(
            configuration: world.config(),
            clock: world.device,
            transport: transport,
            storage: world.storage
        )
        sdk.withLock { $0 = lerix }
        let state = await lerix.start()

        let items = transport.requests.filter { $0.url.contains("/ingest/analytics") }.flatMap { request in
            ((try? JSON.parse(request.body))?.arrayValue ?? []).map { $0["n"]?.numberValue ?? -1 }
        }
        #expect(items == [1, 2, 3, 4])
        #expect(state.queued.isEmpty)
        #expect(world.server.ingest == ["analytics": 4])
        #expect(state.lastSuccess != nil)
    }
}
