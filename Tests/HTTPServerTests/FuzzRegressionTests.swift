import HTTP
import Testing

/// Inputs the fuzzers (Fuzz/run.sh) found, pinned so the fixes stay.
@Suite struct FuzzRegressionTests {
    /// Feeds `bytes` whole, then `chunk` bytes at a time, and returns both event summaries.
    func parseBothWays(_ bytes: [UInt8], chunk: Int, limits: HTTPLimits) -> (whole: [Int], chunked: [Int]) {
        func statuses(_ events: [HTTPParserEvent]) -> [Int] {
            events.compactMap {
                if case .failure(let error) = $0 { error.status } else if case .request = $0 { 200 } else { nil }
            }
        }
        var whole = HTTPRequestParser(limits: limits)
        let expected = statuses(whole.feed(bytes))
        var pieces = HTTPRequestParser(limits: limits)
        var events: [HTTPParserEvent] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            events += pieces.feed(Array(bytes[start..<min(bytes.count, start + chunk)]))
        }
        return (expected, statuses(events))
    }

    /// fuzz http1-parser: a long request line whose target had ended answered 414 when it
    /// arrived in pieces but 400 when whole.
    @Test func aLongRequestLineWithAShortTargetIs400HoweverItIsSplit() {
        let limits = HTTPLimits(maxBodyBytes: 4096, maxTargetBytes: 512, maxHeaderBytes: 2048)
        let line = Array(". .,Z^ 'String.".utf8) + [UInt8](repeating: 0xFF, count: 700) + Array("\r\n\r\n".utf8)
        let result = parseBothWays(line, chunk: 49, limits: limits)
        #expect(result.whole == [400])
        #expect(result.chunked == [400])
    }

    @Test func aTargetStillRunningPastTheLimitIs414HoweverItIsSplit() {
        let limits = HTTPLimits(maxBodyBytes: 4096, maxTargetBytes: 512, maxHeaderBytes: 2048)
        let line =
            Array("GET /".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 700) + Array(" HTTP/1.1\r\n\r\n".utf8)
        let result = parseBothWays(line, chunk: 49, limits: limits)
        #expect(result.whole == [414])
        #expect(result.chunked == [414])
    }

    /// fuzz http1-parser: a target that ends only after the limit's window (here with NULs
    /// and no LF at all) is 414 in pieces and whole alike.
    @Test func aTargetEndingPastTheWindowIs414HoweverItIsSplit() {
        let limits = HTTPLimits(maxBodyBytes: 4096, maxTargetBytes: 512, maxHeaderBytes: 2048)
        var line = Array("^ 'String".utf8) + [0, 0, 0x21]
        line += [UInt8](repeating: 0xFF, count: 620) + Array(" Di".utf8) + [UInt8](repeating: 0xE5, count: 30)
        let result = parseBothWays(line, chunk: 27, limits: limits)
        #expect(result.whole == [414])
        #expect(result.chunked == [414])
    }

    /// A complete request line longer than the window is judged by the window too: a
    /// 600-byte method no longer slips through when the line arrives whole.
    @Test func anOverlongLineIsJudgedTheSameWholeOrInPieces() {
        let limits = HTTPLimits(maxBodyBytes: 4096, maxTargetBytes: 512, maxHeaderBytes: 2048)
        let line = [UInt8](repeating: UInt8(ascii: "A"), count: 600) + Array(" / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let result = parseBothWays(line, chunk: 27, limits: limits)
        #expect(result.whole == [400])
        #expect(result.chunked == [400])
    }
}
