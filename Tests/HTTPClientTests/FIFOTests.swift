import HTTPClient
import Testing

@Suite struct FIFOTests {
    @Test func fifoKeepsOrderAcrossCompaction() {
        var fifo = FIFO<Int>()
        var out: [Int] = []
        for i in 0..<5000 {
            fifo.append(i)
            if i % 3 == 0, let x = fifo.popFirst() { out.append(x) }
        }
        while let x = fifo.popFirst() { out.append(x) }
        #expect(out == Array(0..<5000))
    }

    @Test func removeTakesTheFirstOccurrenceAndRemoveAllTheRest() {
        var fifo = FIFO<Int>()
        for i in [1, 2, 3, 2] { fifo.append(i) }
        _ = fifo.popFirst()
        let removed = fifo.remove(2)
        let absent = fifo.remove(9)
        #expect(removed)
        #expect(!absent)
        let rest = fifo.removeAll()
        #expect(rest == [3, 2])
        #expect(fifo.isEmpty)
    }
}
