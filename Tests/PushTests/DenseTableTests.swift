import HTTP2
import Testing

/// ``DenseTable`` as the HTTP/2 client uses it: odd stream ids, answered mostly in order.
@Suite struct DenseTableTests {
    @Test func streamIDsResolveWhileTheAnsweredFrontIsDropped() {
        var table = DenseTable<Int>()
        var live: [Int: Int] = [:]
        var wrongRemovals = 0
        for n in 0..<3000 {
            let streamID = 2 * n + 1
            table[streamID] = n
            live[streamID] = n
            // Answer most in order, one in five late.
            if n >= 10, n % 5 != 0 {
                let answered = 2 * (n - 10) + 1
                if table.removeValue(forKey: answered) != n - 10 { wrongRemovals += 1 }
                live[answered] = nil
            }
        }
        #expect(wrongRemovals == 0)
        #expect(table.count == live.count)
        #expect(table.keys == live.keys.sorted())
        #expect(table.values == live.keys.sorted().compactMap { live[$0] })
        #expect(live.allSatisfy { table[$0.key] == $0.value })
        #expect(table[2] == nil, "an even id was never used")
        #expect(table[1] == 0, "stream 1 (one in five) is still waiting")
        #expect(table[3] == nil, "answered")
        #expect(table[100_001] == nil, "never opened")
    }

    @Test func aKeyBelowTheLiveFrontIsKeptAndEmptyingKeepsKeysIncreasing() {
        var table = DenseTable<String>()
        table[10] = "ten"
        table[5] = "five"  // below the front: the table grows there
        #expect(table[5] == "five")
        #expect(table[10] == "ten")
        #expect(table.keys == [5, 10])
        table[5] = nil
        table[10] = nil
        #expect(table.isEmpty)
        #expect(table.endKey == 11, "a table that empties keeps its end, so handed-out ids keep increasing")
        table[11] = "eleven"
        #expect(table.count == 1)
        table.removeAll()
        #expect(table.count == 0)
        #expect(table[11] == nil)
    }
}
