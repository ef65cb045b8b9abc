import Testing

@testable import Push

@Suite struct WorkTableTests {
    @Test func idsIncreaseAndLookupsSurviveCompactionAndOutOfOrderFinishes() {
        var table = WorkTable<Int>()
        var live: [Int: Int] = [:]
        for n in 0..<5000 {
            let id = table.insert(n * 10)
            #expect(id == n)
            live[id] = n * 10
            // Finish most in order, leave every 7th behind for a while (a retry).
            if n >= 3, (n - 3) % 7 != 0 {
                #expect(table.removeValue(forKey: n - 3) == (n - 3) * 10)
                live[n - 3] = nil
            }
        }
        #expect(table.count == live.count)
        #expect(table.ids == live.keys.sorted())
        for (id, value) in live { #expect(table[id] == value) }
        #expect(table[2] == nil, "finished")
        #expect(table[99_999] == nil, "never handed out")
        for id in table.ids { table[id] = nil }
        #expect(table.count == 0)
        #expect(table.insert(7) == 5000, "ids keep increasing after the table empties")
    }

    @Test func aFrontFinishedInOrderIsDroppedAndLaterIdsStillResolve() {
        var table = WorkTable<Int>()
        for n in 0..<3000 { _ = table.insert(n) }
        for id in 0..<2500 { table[id] = nil }
        #expect(table.count == 500)
        #expect(table[2499] == nil)
        #expect(table[2500] == 2500)
        #expect(table[2999] == 2999)
        #expect(table.insert(-1) == 3000)
        #expect(table.ids.first == 2500)
        #expect(table.ids.count == 501)
    }
}
