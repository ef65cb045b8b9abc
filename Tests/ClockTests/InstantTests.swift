import Testing

@testable import Clock

@Suite struct InstantRFC3339Tests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Instant(millisecondsSinceEpoch: 0).rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(Instant(millisecondsSinceEpoch: 1_796_209_200_123).rfc3339 == "2026-12-02T11:00:00.123Z")
    }

    @Test func formatsInstantsBeforeTheEpoch() {
        #expect(Instant(millisecondsSinceEpoch: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
    }

    @Test func parsesWhatItFormats() throws {
        for ms: Int64 in [0, 1, 999, 86_399_999, 951_782_400_000, 1_796_209_200_123, 4_102_444_800_000] {
            let instant = Instant(millisecondsSinceEpoch: ms)
            #expect(Instant(rfc3339: instant.rfc3339) == instant)
        }
    }

    @Test func parsesOffsetsAndFractionsOfAnyLength() {
        #expect(Instant(rfc3339: "2026-12-02T12:00:00+01:00")?.rfc3339 == "2026-12-02T11:00:00.000Z")
        #expect(Instant(rfc3339: "2026-12-02T10:30:00.5-00:30")?.rfc3339 == "2026-12-02T11:00:00.500Z")
        #expect(Instant(rfc3339: "2026-12-02t11:00:00.123456z")?.rfc3339 == "2026-12-02T11:00:00.123Z")
    }

    @Test(arguments: [
        "", "2026-12-02", "2026-12-02T11:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-12-02T24:00:00Z", "2026-12-02T11:00:00.Z", "2026-12-02T11:00:00Zjunk", "yesterday",
        "2026-12-02T11:00:00+1:00",
    ])
    func rejectsMalformedTimes(text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    /// The 24-byte form the wire writes has its own straight-line reader: it must agree with the
    /// general one on every time it writes and refuse what the general one refuses.
    @Test func theCanonicalFormReadsAsTheGeneralForm() {
        var ms: Int64 = -62_167_219_200_000
        while ms < 253_402_300_799_999 {
            let text = Instant(millisecondsSinceEpoch: ms).rfc3339
            #expect(text.utf8.count == 24)
            #expect(Instant(rfc3339: text) == Instant(millisecondsSinceEpoch: ms))
            // The general reader, reached by a longer fraction of the same time.
            #expect(Instant(rfc3339: String(text.dropLast()) + "0Z") == Instant(millisecondsSinceEpoch: ms))
            ms += 7_919_999_999_993
        }
        for text in [
            "2026-12-02T11:00:00.00aZ", "2026-13-02T11:00:00.000Z", "2026-02-30T11:00:00.000Z",
            "2026-12-02T24:00:00.000Z", "2026-12-02T11:60:00.000Z", "2026-12-00T11:00:00.000Z",
            "2026-12-02T11:00:00.0000", "2026/12-02T11:00:00.000Z", " 026-12-02T11:00:00.000Z",
            "2026-12-02T11:00:00:000Z", "2026-12-02T11:00:00.000+",
        ] {
            #expect(text.utf8.count == 24)
            #expect(Instant(rfc3339: text) == nil, "\(text)")
        }
        #expect(Instant(rfc3339: "2026-12-02T23:59:60.250Z")?.rfc3339 == "2026-12-02T23:59:59.250Z")
        #expect(Instant(rfc3339: "2026-12-02t11:00:00.000z")?.rfc3339 == "2026-12-02T11:00:00.000Z")
    }

    @Test func acceptsLeapDays() {
        #expect(Instant(rfc3339: "2028-02-29T00:00:00Z") != nil)
        #expect(Instant(rfc3339: "2000-02-29T00:00:00Z") != nil)
        #expect(Instant(rfc3339: "2100-02-29T00:00:00Z") == nil)
    }
}

@Suite struct InstantFormattingEdgeTests {
    @Test func formatsEveryFieldWithLeadingZeros() {
        #expect(Instant(rfc3339: "0001-01-01T01:02:03.004Z")?.rfc3339 == "0001-01-01T01:02:03.004Z")
        #expect(Instant(rfc3339: "9999-12-31T23:59:59.999Z")?.rfc3339 == "9999-12-31T23:59:59.999Z")
    }

    @Test func yearsBeyondFourDigitsDoNotTrap() {
        let far = Instant(millisecondsSinceEpoch: 400_000_000_000_000)
        #expect(far.rfc3339.hasSuffix("Z"))
    }
}

@Suite struct InstantRFC3339BytesTests {
    @Test(arguments: [0, 1_764_774_035_123, -1, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001])
    func theBytesAreTheTextsOwn(milliseconds: Int64) {
        let instant = Instant(millisecondsSinceEpoch: milliseconds)
        var bytes: [UInt8] = [0x41]
        instant.writeRFC3339(into: &bytes)
        #expect(bytes == [0x41] + Array(instant.rfc3339.utf8))
    }
}
