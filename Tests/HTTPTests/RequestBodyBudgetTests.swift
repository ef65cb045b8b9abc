import Testing

@testable import HTTP

/// HTTP/1.1 bodies take from the same server-wide budget as HTTP/2's (issue 42): one body at a
/// time per connection, at most the body limit, and all of them together at most the budget, so
/// ten thousand connections each part-way through a 1 MiB upload cannot hold 10 GB.
@Suite struct RequestBodyBudgetTests {
    static func head(length: Int) -> [UInt8] {
        Array("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\r\n".utf8)
    }

    static func failureStatus(_ events: [HTTPParserEvent]) -> Int? {
        for case .failure(let error) in events { return error.status }
        return nil
    }

    @Test func aBodyPastTheServersBudgetIs503AndTakesNothing() {
        let budget = BodyBudget(limit: 100_000)
        var first = HTTPRequestParser(bodyBudget: budget)
        #expect(first.feed(Self.head(length: 80_000) + [UInt8](repeating: 0x61, count: 60_000)).isEmpty)
        #expect(first.chargedBodyBytes >= 60_000 && first.chargedBodyBytes <= 80_000)
        #expect(budget.heldBytes == first.chargedBodyBytes)
        var second = HTTPRequestParser(bodyBudget: budget)
        let held = budget.heldBytes
        #expect(
            Self.failureStatus(second.feed(Self.head(length: 80_000) + [UInt8](repeating: 0x62, count: 50_000))) == 503
        )
        #expect(second.hasFailed)
        #expect(budget.heldBytes == held, "the refused body took nothing")
    }

    @Test func aFinishedBodyGivesItsBytesBackAndArrivesWhole() {
        let budget = BodyBudget(limit: 100_000)
        var parser = HTTPRequestParser(bodyBudget: budget)
        _ = parser.feed(Self.head(length: 80_000) + [UInt8](repeating: 0x61, count: 30_000))
        let events = parser.feed([UInt8](repeating: 0x61, count: 50_000))
        var bodies: [Int] = []
        for case .request(let request, _) in events { bodies.append(request.body.count) }
        #expect(bodies == [80_000])
        #expect(budget.heldBytes == 0)
        #expect(parser.chargedBodyBytes == 0)
    }

    @Test func aConnectionThatGoesAwayMidBodyGivesItsBytesBack() {
        let budget = BodyBudget(limit: 100_000)
        var dropped: HTTPRequestParser? = HTTPRequestParser(bodyBudget: budget)
        _ = dropped?.feed(Self.head(length: 80_000) + [UInt8](repeating: 0x61, count: 40_000))
        #expect(budget.heldBytes >= 40_000)
        dropped = nil
        #expect(budget.heldBytes == 0)
        var abandoned = HTTPRequestParser(bodyBudget: budget)
        _ = abandoned.feed(Self.head(length: 80_000) + [UInt8](repeating: 0x61, count: 40_000))
        abandoned.abandon()
        #expect(budget.heldBytes == 0)
        #expect(abandoned.feed(Self.head(length: 1)).isEmpty, "nothing more is read after it")
    }

    @Test func chunkedBodiesArePaidForBeforeTheyAreCopied() {
        let budget = BodyBudget(limit: 10_000)
        var parser = HTTPRequestParser(bodyBudget: budget)
        var input = Array("POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<4 { input += Array("1000\r\n".utf8) + [UInt8](repeating: 0x63, count: 4096) + Array("\r\n".utf8) }
        #expect(Self.failureStatus(parser.feed(input)) == 503)
        #expect(budget.heldBytes == 0)
        // Within the budget a chunked body arrives whole and gives its bytes back.
        var small = HTTPRequestParser(bodyBudget: budget)
        let events = small.feed(
            Array("POST /u HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8)
        )
        var bodies: [[UInt8]] = []
        for case .request(let request, _) in events { bodies.append(request.body) }
        #expect(bodies == [Array("hello".utf8)])
        #expect(budget.heldBytes == 0)
    }

    @Test func withoutABudgetOnlyTheBodyLimitApplies() {
        var parser = HTTPRequestParser()
        let events = parser.feed(Self.head(length: 500_000) + [UInt8](repeating: 0x61, count: 500_000))
        var bodies: [Int] = []
        for case .request(let request, _) in events { bodies.append(request.body.count) }
        #expect(bodies == [500_000])
        #expect(parser.chargedBodyBytes == 0)
    }
}
