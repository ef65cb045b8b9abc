import Testing

@testable import Push

@Suite struct ConnectionPoolTests {
    func sends(_ actions: [ConnectionPool.Action]) -> [Int] {
        actions.compactMap { if case .send(let r, _) = $0 { return r } else { return nil } }
    }

    @Test func opensOneConnectionLazilyAndSendsOnceThePeerSettingsArrive() {
        var pool = ConnectionPool(maxConnections: 2)
        do {
            let got = pool.submit([1, 2, 3])
            #expect(got == [.open(0)])
        }
        do {
            let got = pool.submit(4)
            #expect(got == [])
        }
        do {
            let got = pool.connected(0, maxConcurrentStreams: 100)
            #expect(got == [.send(1, on: 0), .send(2, on: 0), .send(3, on: 0), .send(4, on: 0)])
        }
        #expect(pool.inFlightCount == 4)
    }

    @Test func neverExceedsThePeersMaxConcurrentStreams() {
        var pool = ConnectionPool(maxConnections: 1)
        _ = pool.submit(Array(0..<10))
        do {
            let got = sends(pool.connected(0, maxConcurrentStreams: 3))
            #expect(got == [0, 1, 2])
        }
        #expect(pool.inFlight(on: 0) == 3)
        do {
            let got = sends(pool.streamClosed(on: 0))
            #expect(got == [3])
        }
        #expect(pool.inFlight(on: 0) == 3)
        do {
            let got = sends(pool.settingsChanged(0, maxConcurrentStreams: 1))
            #expect(got == [])
        }
        do {
            let got = sends(pool.streamClosed(on: 0))
            #expect(got == [])
        }
        do {
            let got = sends(pool.streamClosed(on: 0))
            #expect(got == [])
        }
        do {
            let got = sends(pool.streamClosed(on: 0))
            #expect(got == [4])
        }
        #expect(pool.queuedCount == 5)
    }

    @Test func ourOwnStreamCapAppliesWhenThePeerAllowsMore() {
        var pool = ConnectionPool(maxConnections: 1, maxStreamsPerConnection: 2)
        _ = pool.submit(Array(0..<5))
        do {
            let got = sends(pool.connected(0, maxConcurrentStreams: Int(Int32.max)))
            #expect(got == [0, 1])
        }
    }

    @Test func growsToMaxConnectionsWhenTheOpenOnesAreFull() {
        var pool = ConnectionPool(maxConnections: 2)
        _ = pool.submit(Array(0..<5))
        do {
            let got = pool.connected(0, maxConcurrentStreams: 2)
            #expect(got == [.send(0, on: 0), .send(1, on: 0), .open(1)])
        }
        do {
            let got = pool.connected(1, maxConcurrentStreams: 2)
            #expect(got == [.send(2, on: 1), .send(3, on: 1)])
        }
        #expect(pool.queuedCount == 1)
        #expect(pool.connectionCount == 2)
    }

    @Test func aFailedConnectFailsTheQueueWhenNoConnectionIsLeft() {
        var pool = ConnectionPool(maxConnections: 2)
        _ = pool.submit([7, 8])
        do {
            let got = pool.connectionLost(0, reason: "connect to 127.0.0.1:1 failed: Connection refused")
            #expect(got == [.fail([7, 8], reason: "connect to 127.0.0.1:1 failed: Connection refused")])
        }
        #expect(pool.queuedCount == 0)
        do {
            let got = pool.submit(9)
            #expect(got == [.open(1)])
        }
    }

    @Test func aFailedExtraConnectKeepsUsingTheLiveOneWithoutReconnectStorms() {
        var pool = ConnectionPool(maxConnections: 3)
        _ = pool.submit(Array(0..<4))
        do {
            let got = pool.connected(0, maxConcurrentStreams: 1)
            #expect(got == [.send(0, on: 0), .open(1)])
        }
        do {
            let got = pool.connectionLost(1, reason: "refused")
            #expect(got == [])
        }
        do {
            let got = pool.streamClosed(on: 0)
            #expect(got == [.send(1, on: 0)])
        }
        #expect(pool.queuedCount == 2)
    }

    @Test func aBrokenLiveConnectionIsReplacedForQueuedWork() {
        var pool = ConnectionPool(maxConnections: 1)
        _ = pool.submit(Array(0..<3))
        _ = pool.connected(0, maxConcurrentStreams: 1)
        do {
            let got = pool.connectionLost(0, reason: "reset by peer")
            #expect(got == [.open(1)])
        }
        do {
            let got = pool.connected(1, maxConcurrentStreams: 5)
            #expect(got == [.send(1, on: 1), .send(2, on: 1)])
        }
    }

    @Test func goAwayDrainsThenCloses() {
        var pool = ConnectionPool(maxConnections: 1)
        _ = pool.submit([1, 2])
        _ = pool.connected(0, maxConcurrentStreams: 1)
        do {
            let got = pool.goingAway(0)
            #expect(got == [])
        }
        do {
            let got = pool.streamClosed(on: 0)
            #expect(got == [.close(0), .open(1)])
        }
    }

    @Test func aQueuedRequestCanBeCancelled() {
        var pool = ConnectionPool(maxConnections: 1)
        _ = pool.submit([1, 2])
        do {
            let got = pool.cancelQueued(2)
            #expect(got)
        }
        do {
            let got = pool.cancelQueued(5)
            #expect(!got)
        }
        do {
            let got = sends(pool.connected(0, maxConcurrentStreams: 10))
            #expect(got == [1])
        }
    }
}
