import HTTP
import Testing

/// Header lookups by name: case-insensitive, first field wins, any length.
@Suite struct HTTPHeadersLookupTests {
    @Test func aNameIsFoundInAnyCaseAndTheFirstFieldOfItWins() {
        let headers = HTTPHeaders([
            ("Accept", "application/json"), ("If-None-Match", "W/\"a\""), ("Host", "lerix.test"),
            ("if-none-match", "W/\"b\""), ("X-Ünïcode", "yes"),
        ])
        #expect(headers["If-None-Match"] == "W/\"a\"")
        #expect(headers["IF-NONE-MATCH"] == "W/\"a\"")
        #expect(headers.firstIndex(of: "if-none-match") == 1)
        #expect(headers["host"] == "lerix.test")
        #expect(headers["X-Ünïcode"] == "yes")
        #expect(headers.values("If-None-Match") == ["W/\"a\"", "W/\"b\""])
    }

    @Test func aNameOfAnotherLengthOrSpellingIsNotFound() {
        let headers = HTTPHeaders([("Accept", "application/json"), ("Host", "lerix.test")])
        #expect(headers["Accep"] == nil)
        #expect(headers["Accepts"] == nil)
        #expect(headers["Hast"] == nil)
        #expect(headers[""] == nil)
        #expect(HTTPHeaders()["Host"] == nil)
    }
}
