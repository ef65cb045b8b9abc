import Clock
import Testing

@testable import LerixSDK

/// `Lerix-Server-Time` as the SDK reads it from an answer's header (a 304's clock reference).
@Suite struct ServerTimeHeaderTests {
    static func read(_ value: String?) -> Instant? {
        ReleaseControlMachine.headerServerTime(
            TransportResponse(status: 304, headers: value.map { [("lerix-server-time", $0)] } ?? [])
        )
    }

    @Test func aTimeReadsWithOrWithoutSpacesAndTabsAroundIt() {
        let time = Instant(rfc3339: "2026-12-02T11:00:00.250Z")
        #expect(time != nil)
        for value in [
            "2026-12-02T11:00:00.250Z", " 2026-12-02T11:00:00.250Z", "2026-12-02T11:00:00.250Z\t",
            " \t2026-12-02T12:00:00.250+01:00  ",
        ] {
            #expect(Self.read(value) == time, "\(value)")
        }
    }

    /// Reads are remembered across instances (a fleet's devices get the same text): another
    /// text is never read as the one before it, nor an unreadable one as the last readable one.
    @Test func eachTextReadsAsItselfWhateverWasReadBefore() {
        let texts = [
            "2026-12-02T11:00:00.250Z", "2026-12-02T11:00:00.250Z", "2026-12-02T11:01:00.250Z",
            "2026-12-02T12:00:00.250+01:00", "yesterday", "2026-12-02T11:00:00.250Z", "2026-12-02T11:00:00.251Z",
        ]
        for text in texts {
            #expect(Self.read(text) == Instant(rfc3339: text), "\(text)")
        }
        #expect(Self.read("yesterday") == nil)
    }

    @Test func noHeaderOrNoTimeReadsAsNone() {
        #expect(Self.read(nil) == nil)
        for value in ["", "   ", "2026-12-02 T11:00:00Z", "yesterday", " 2026-12-02T11:00:00.250Z x"] {
            #expect(Self.read(value) == nil, "\(value)")
        }
    }
}
