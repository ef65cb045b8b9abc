import Testing

@testable import ReleaseControl

@Suite struct VersionTests {
    /// Each pair is strictly ascending.
    static let ascending: [(String, String)] = [
        ("2.9.1", "2.10.0"),
        ("1.0.0-beta", "1.0.0"),
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
        ("1.0.0-alpha.beta", "1.0.0-beta"),
        ("1.0.0-beta", "1.0.0-beta.2"),
        ("1.0.0-beta.2", "1.0.0-beta.11"),
        ("1.0.0-beta.11", "1.0.0-rc.1"),
        ("1.0.0-rc.1", "1.0.0"),
        ("1", "1.0.1"),
        ("1.2", "1.10"),
        ("0.9", "1"),
        ("1.2.3.4", "1.2.3.5"),
        ("99999999999999999999999", "100000000000000000000000"),
        ("1.0.0-2", "1.0.0-10"),
        ("1.0.0-99", "1.0.0-a"),
    ]

    @Test(arguments: ascending)
    func ordersAscendingPairs(_ pair: (String, String)) throws {
        let a = try #require(Version(pair.0))
        let b = try #require(Version(pair.1))
        #expect(a < b)
        #expect(!(b < a))
        #expect(a != b)
    }

    @Test(arguments: [
        ("1.2", "1.2.0"), ("1", "1.0.0.0"), ("1.0.0+build.5", "1.0.0"), ("1.02", "1.2"), ("1.0-beta", "1.0.0-beta+x"),
    ])
    func equalVersionsAreEqualAndHashAlike(_ pair: (String, String)) throws {
        let a = try #require(Version(pair.0))
        let b = try #require(Version(pair.1))
        #expect(a == b)
        #expect(!(a < b) && !(b < a))
        #expect(Set([a, b]).count == 1)
    }

    @Test(arguments: [
        "", " 1.0", "1.0 ", "v1.2", "1..2", ".1", "1.", "1.a", "1.0-", "1.0-beta..1", "1.0+", "1.0-be_ta", "x", "-1",
        "1.0.0-béta", "1,2",
    ])
    func rejectsGarbage(_ text: String) {
        #expect(Version(text) == nil)
    }

    @Test func keepsTheWrittenText() throws {
        let v = try #require(Version("2.4.0+build.7"))
        #expect(v.description == "2.4.0+build.7")
        #expect(v.text == "2.4.0+build.7")
    }

    @Test func rejectsOverlongText() {
        #expect(Version(String(repeating: "1.", count: 200) + "1") == nil)
    }
}
