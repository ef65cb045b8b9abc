import Testing

@testable import Clock

@Suite struct InstantHTTPDateTests {
    @Test func formatsTheRFCsOwnExampleAsIMFFixdate() {
        #expect(Instant(secondsSinceEpoch: 784_111_777).httpDate == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func dropsMillisecondsAndNamesEveryWeekdayAndMonth() {
        #expect(Instant(millisecondsSinceEpoch: 0).httpDate == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(Instant(millisecondsSinceEpoch: 1_796_209_200_999).httpDate == "Wed, 02 Dec 2026 11:00:00 GMT")
        #expect(Instant(rfc3339: "2024-02-29T23:59:59.500Z")!.httpDate == "Thu, 29 Feb 2024 23:59:59 GMT")
        #expect(Instant(rfc3339: "2000-03-05T01:02:03Z")!.httpDate == "Sun, 05 Mar 2000 01:02:03 GMT")
        #expect(Instant(rfc3339: "2026-06-13T12:00:00Z")!.httpDate == "Sat, 13 Jun 2026 12:00:00 GMT")
        #expect(Instant(rfc3339: "2026-09-21T12:00:00Z")!.httpDate == "Mon, 21 Sep 2026 12:00:00 GMT")
        #expect(Instant(rfc3339: "2026-08-04T12:00:00Z")!.httpDate == "Tue, 04 Aug 2026 12:00:00 GMT")
        #expect(Instant(rfc3339: "2026-10-23T12:00:00Z")!.httpDate == "Fri, 23 Oct 2026 12:00:00 GMT")
    }

    @Test func floorsInstantsBeforeTheEpochToTheirSecond() {
        #expect(Instant(millisecondsSinceEpoch: -1).httpDate == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(Instant(millisecondsSinceEpoch: -1000).httpDate == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(Instant(millisecondsSinceEpoch: -1001).httpDate == "Wed, 31 Dec 1969 23:59:58 GMT")
    }

    @Test func clampsYearsIMFFixdateCannotWriteInsteadOfTrapping() {
        #expect(Instant(millisecondsSinceEpoch: .max).httpDate == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(Instant(millisecondsSinceEpoch: .min).httpDate == "Sat, 01 Jan 0000 00:00:00 GMT")
    }

    @Test func agreesWithRFC3339ForEveryDayOfFourYears() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let start = Instant(rfc3339: "2027-01-01T00:00:00Z")!
        for day: Int64 in 0..<1461 {
            let instant = start.adding(seconds: day * 86_400 + 3723)
            let iso = Array(instant.rfc3339.utf8)
            func field(_ range: Range<Int>) -> String { String(decoding: iso[range], as: UTF8.self) }
            let expected = field(8..<10) + " " + months[Int(field(5..<7))! - 1] + " " + field(0..<4) + " 01:02:03 GMT"
            #expect(instant.httpDate.dropFirst(5) == Substring(expected))
        }
    }
}
