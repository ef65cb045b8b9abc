import Clock
import Testing

@testable import MockServer

/// The journal is a ring: it keeps the newest `capacity` checks, lists them newest first, and
/// counts every check appended, the ones it dropped too.
@Suite struct RequestJournalTests {
    static func entry(_ n: Int, project: String = "demo") -> RequestJournal.Entry {
        RequestJournal.Entry(
            at: Instant(millisecondsSinceEpoch: Int64(n) * 1000),
            project: project,
            device: .init(.init(platform: "ios", version: "2.3.\(n)")),
            status: 200
        )
    }

    @Test func aFullRingKeepsTheNewestAndCountsEveryCheck() {
        var journal = RequestJournal(capacity: 3)
        for n in 1...5 { journal.append(Self.entry(n)) }
        #expect(journal.count == 3)
        #expect(journal.newest(limit: 10).map(\.version) == ["2.3.5", "2.3.4", "2.3.3"])
        #expect(journal.appended(project: "demo") == 5)
        #expect(journal.appended(project: "demo", after: 3).map(\.version) == ["2.3.4", "2.3.5"])
    }

    @Test func projectsAreCountedApartAndListedByProject() {
        var journal = RequestJournal(capacity: 100)
        for n in 1...4 { journal.append(Self.entry(n, project: n.isMultiple(of: 2) ? "b" : "a")) }
        journal.append(Self.entry(5, project: "a"))
        #expect(journal.appended(project: "a") == 3)
        #expect(journal.appended(project: "b") == 2)
        #expect(journal.newest(limit: 2, project: "a").map(\.version) == ["2.3.5", "2.3.3"])
        #expect(journal.newest(limit: 10).count == 5)
    }
}
