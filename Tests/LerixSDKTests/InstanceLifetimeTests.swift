import Foundation
import LerixSDK
import Testing

/// An instance the app lets go checks no more, and what it held (its transport) is freed once
/// its last timer's deadline has passed: its timers hold its machinery, not a weak reference.
@Suite struct InstanceLifetimeTests {
    /// Answers through the world's server and says when it is freed.
    final class WatchedTransport: Transport {
        let inner: InMemoryTransport
        let freed: Locked<Bool>
        init(_ inner: InMemoryTransport, freed: Locked<Bool>) {
            self.inner = inner
            self.freed = freed
        }
        deinit { freed.withLock { $0 = true } }
        func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
            inner.send(request, completion: completion)
        }
    }

    @Test func anInstanceLetGoChecksNoMoreAndIsFreed() async {
        let world = World()
        world.server.update { $0.lifetime = 60 }  // a foreground app polls every minute
        let freed = Locked(false)
        var sdk: Lerix? = Lerix(
            configuration: world.config(),
            clock: world.device,
            transport: WatchedTransport(world.transport, freed: freed),
            storage: world.storage
        )
        await sdk?.start()
        #expect(world.server.checks == 1)
        world.advance(seconds: 600)  // the timer checked about every minute
        let checksWhileHeld = world.server.checks
        #expect(checksWhileHeld >= 2)
        sdk = nil
        world.advance(seconds: 3600)
        #expect(world.server.checks == checksWhileHeld)
        #expect(freed.withLock { $0 })
    }

    @Test func anInstanceStillHeldKeepsChecking() async {
        let world = World()
        world.server.update { $0.lifetime = 60 }
        let sdk = world.sdk()
        await sdk.start()
        world.advance(seconds: 3600)
        #expect(world.server.checks > 2)
    }
}
