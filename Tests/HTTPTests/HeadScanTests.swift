import Testing

@testable import HTTP

/// The parser's line-end search (eight bytes a step) and its shared field names.
@Suite struct HeadScanTests {
    @Test func firstLFFindsTheFirstLineEndAtEveryOffsetAndLength() {
        // Bytes either side of LF (0x09, 0x0B, 0x0D) and high bytes, which a word-wise
        // search must not mistake for it.
        let filler: [UInt8] = [0x09, 0x0B, 0x0D, 0x8A, 0xFF, 0x80, 0x41, 0x00]
        for length in 0..<40 {
            let plain = (0..<length).map { filler[$0 % filler.count] }
            plain.withUnsafeBytes { #expect(HTTPRequestParser.firstLF($0, from: 0) == nil, "length \(length)") }
            for at in 0..<length {
                var bytes = plain
                bytes[at] = 0x0A
                if at + 3 < length { bytes[at + 3] = 0x0A }  // a later one must not win
                for start in 0...at {
                    bytes.withUnsafeBytes {
                        #expect(
                            HTTPRequestParser.firstLF($0, from: start) == at,
                            "length \(length), LF at \(at), from \(start)"
                        )
                    }
                }
                bytes.withUnsafeBytes {
                    let after = HTTPRequestParser.firstLF($0, from: at + 1)
                    #expect(after == (at + 3 < length ? at + 3 : nil), "length \(length), after \(at)")
                }
            }
        }
    }

    @Test func pushProviderFieldNamesAreSharedAsSent() {
        for name in [
            "apns-topic", "apns-priority", "apns-push-type", "authorization", "content-type", "content-length",
            "Content-Type", "APNS-Topic", "apns-topix", "content-lengt",
        ] {
            let parsed = Array(name.utf8).withUnsafeBytes { HTTPRequestParser.fieldName($0) }
            #expect(parsed == name)
        }
    }

    @Test func sharedFieldNamesKeepTheSpellingSent() {
        for name in [
            "Host", "host", "Accept", "accept", "User-Agent", "user-agent", "Connection", "If-None-Match",
            "if-none-match", "Accept-Encoding", "accept-encoding", "HOST", "hOst", "X-Other", "Accept-Language",
        ] {
            let bytes = Array(name.utf8)
            let parsed = bytes.withUnsafeBytes { HTTPRequestParser.fieldName($0) }
            #expect(parsed == name)
        }
        var parser = HTTPRequestParser()
        let events = parser.feed(Array("GET / HTTP/1.1\r\nhost: h\r\nIf-None-Match: \"a\"\r\nACCEPT: */*\r\n\r\n".utf8))
        guard case .request(let request, _)? = events.first else {
            Issue.record("no request in \(events)")
            return
        }
        #expect(request.headers.fields.map(\.name) == ["host", "If-None-Match", "ACCEPT"])
        #expect(request.headers["if-none-match"] == "\"a\"")
    }
}
