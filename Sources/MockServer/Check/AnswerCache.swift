/// A project's served answers by device class (as sent, so a hit parses no version), for one
/// ``ProjectRuntime/stamp``. Remembers the read check target that looked up an answer last: a
/// fleet's checks come in runs of one device class (one target), and comparing two references
/// costs far less than hashing the key into the dictionary or comparing it.
///
/// ```swift
/// var cache = AnswerCache()
/// cache.store(answer, for: read, capacity: 1000)   // read.key must be set
/// cache.answer(for: read)   // answer: the last one again, or the dictionary's for read.key
/// ```
struct AnswerCache: Sendable {
    private var answers: [CheckQuery.Key: ServedAnswer] = [:]
    /// The target that looked up or stored an answer last, and the answer `answers` holds for
    /// its key (every change to `answers` sets or clears both). Holding the read keeps its
    /// identity from being reused.
    private var lastRead: CheckQueryMemo.Read?
    private var lastAnswer: ServedAnswer?

    init() {}

    var count: Int { answers.count }

    /// The answer cached for `read`'s device (valid or not); nil for none or a read without a key.
    mutating func answer(for read: CheckQueryMemo.Read) -> ServedAnswer? {
        if lastRead === read, let lastAnswer { return lastAnswer }
        guard let key = read.key, let answer = answers[key] else { return nil }
        lastRead = read
        lastAnswer = answer
        return answer
    }

    /// Caches `answer` for `read`'s device; a cache of `capacity` answers starts over first.
    mutating func store(_ answer: ServedAnswer, for read: CheckQueryMemo.Read, capacity: Int) {
        guard let key = read.key else { return }
        if answers.count >= capacity { answers.removeAll(keepingCapacity: true) }
        answers[key] = answer
        lastRead = read
        lastAnswer = answer
    }

    mutating func removeAll() {
        answers.removeAll()
        lastRead = nil
        lastAnswer = nil
    }
}
