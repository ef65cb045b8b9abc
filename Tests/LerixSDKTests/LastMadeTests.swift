import Synchronization
import Testing

@testable import LerixSDK

/// `LastMade`: the value made last is given again for an equal key and only for one.
@Suite struct LastMadeTests {
    @Test func anEqualKeyGetsTheKeptValueWithoutMakingItAgain() {
        let memo = LastMade<String, [Int]>()
        let made = Mutex(0)
        func ask(_ key: String) -> [Int] {
            memo.value(for: key) { key in
                made.withLock { $0 += 1 }
                return Array(key.utf8).map(Int.init)
            }
        }
        let first = ask("ab")
        let second = ask("ab")
        #expect(first == [97, 98] && second == first)
        #expect(made.withLock { $0 } == 1)
        #expect(
            first.withUnsafeBufferPointer { a in second.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
        )
        // Another key is made and then kept in its turn; the one before is made again.
        #expect(ask("c") == [99] && ask("c") == [99] && ask("ab") == [97, 98])
        #expect(made.withLock { $0 } == 3)
    }

    @Test func aValueOfNoneIsKeptToo() {
        let memo = LastMade<String, Int?>()
        let made = Mutex(0)
        func read(_ text: String) -> Int? {
            memo.value(for: text) { text in
                made.withLock { $0 += 1 }
                return Int(text)
            }
        }
        #expect(read("x") == nil && read("x") == nil && read("7") == 7 && read("7") == 7 && read("x") == nil)
        #expect(made.withLock { $0 } == 3)
    }
}
