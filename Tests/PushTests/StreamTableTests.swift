import Testing

@testable import HTTP2

/// ``StreamTable`` as the HTTP/2 server uses it: a peer's odd stream ids, closed in any order,
/// some staying open for long.
@Suite struct StreamTableTests {
    @Test func lookUpsAgreeWithADictionaryWhateverOrderStreamsCloseIn() {
        var table = StreamTable<Int>()
        var model: [Int32: Int] = [:]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var mismatches = 0
        for n in 0..<20_000 {
            let id = Int32(2 * n + 1)
            table[id] = n
            model[id] = n
            // Close a few open streams chosen at random (up to ~300 open at once).
            while model.count > 1 + next() % 300 {
                let open = Array(model.keys)
                let victim = open[next() % open.count]
                if table.removeValue(forKey: victim) != model.removeValue(forKey: victim) { mismatches += 1 }
            }
            if n % 97 == 0 {
                for (key, value) in model where table[key] != value { mismatches += 1 }
                if table.count != model.count { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(table.count == model.count)
        #expect(Set(table.liveKeys) == Set(model.keys))
        #expect(table.liveValues.sorted() == model.values.sorted())
        #expect(table[2] == nil, "an even id was never used")
        #expect(table[40_001] == nil, "never opened")
        #expect(table.removeValue(forKey: 40_001) == nil)
    }

    @Test func aStreamLeftOpenDoesNotMakeTheTableGrowWithLaterIDs() {
        var table = StreamTable<Int>()
        table[1] = -1  // an event stream, open throughout
        for n in 1...100_000 {
            let id = Int32(2 * n + 1)
            table[id] = n
            #expect(table[id] == n)
            table[id] = nil
        }
        #expect(table[1] == -1)
        #expect(table.count == 1)
        #expect(table.keys.count == 16, "sized by the live streams, not by the ids handed out")
    }

    @Test func aBurstGrowsTheTableAndLaterStreamsDoNotGrowItFurther() {
        var table = StreamTable<Int>()
        for n in 0..<1000 { table[Int32(2 * n + 1)] = n }
        #expect(table.count == 1000)
        let grown = table.keys.count
        #expect(grown >= 2000)
        for n in 0..<1000 { #expect(table.removeValue(forKey: Int32(2 * n + 1)) == n) }
        #expect(table.isEmpty)
        for n in 1000..<50_000 {
            table[Int32(2 * n + 1)] = n
            table[Int32(2 * n + 1)] = nil
        }
        #expect(table.keys.count == grown, "sized by the most streams open at once")
        #expect(table.isEmpty)
    }

    @Test func replacingKeepsTheCountAndIdsThatAreNoStreamIdsAreNeverStored() {
        var table = StreamTable<String>()
        table[5] = "a"
        table[5] = "b"
        #expect(table.count == 1)
        #expect(table[5] == "b")
        table[0] = "zero"
        table[-3] = "negative"
        #expect(table[0] == nil && table[-3] == nil)
        #expect(table.count == 1)
        table[7] = nil  // never there
        #expect(table.count == 1)
        table.removeAll()
        #expect(table.isEmpty && table[5] == nil)
    }
}
