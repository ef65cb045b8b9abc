import JSON
import Testing

@Suite struct KeySuggestionTests {
    @Test(arguments: [
        ("bellow", "below"), ("platform", "platforms"), ("limt", "limit"), ("Below", "below"),
        ("andriod", "android"), ("mesage", "message"), ("store-url", "store_url"),
    ])
    func suggestsTheNearestKnownKeyForATypo(typed: String, expected: String) {
        let known = ["below", "platforms", "limit", "android", "message", "store_url", "type"]
        #expect(KeySuggestion.nearest(to: typed, in: known) == expected)
    }

    @Test func suggestsNothingForADifferentWordOrAShortOne() {
        #expect(KeySuggestion.nearest(to: "colour", in: ["below", "platforms"]) == nil)
        #expect(KeySuggestion.nearest(to: "os", in: ["id", "type"]) == nil)
        #expect(KeySuggestion.nearest(to: "", in: ["id"]) == nil)
        #expect(KeySuggestion.nearest(to: String(repeating: "x", count: 1_000_000), in: ["below"]) == nil)
    }

    @Test func tiesGoToTheAlphabeticallyFirstCandidate() {
        #expect(KeySuggestion.nearest(to: "cat", in: ["cot", "bat", "car"]) == "bat")
        #expect(KeySuggestion.nearest(to: "cat", in: ["car", "bat", "cot"]) == "bat")
    }

    @Test func countsASwapOfNeighboursAsOneEdit() {
        #expect(KeySuggestion.editDistance("ab", "ba") == 1)
        #expect(KeySuggestion.editDistance("kitten", "sitting") == 3)
        #expect(KeySuggestion.editDistance("", "abc") == 3)
        #expect(KeySuggestion.editDistance("ca", "abc") == 3)
    }

    @Test func hintSuggestsOrListsTheChoices() {
        #expect(KeySuggestion.hint(for: "bellow", in: ["below", "type"]) == " (did you mean 'below'?)")
        #expect(KeySuggestion.hint(for: "zzz", in: ["type", "below"]) == " (expected one of: below, type)")
        #expect(KeySuggestion.hint(for: "zzz", in: (1...13).map { "key\($0)" }) == "")
        #expect(KeySuggestion.hint(for: "zzz", in: [String]()) == "")
    }
}
