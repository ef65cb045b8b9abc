import HTTP
import TestSupport
import Testing

@testable import HTTPServer

@Suite struct GzipTests {
    let json = Array(String(repeating: #"{"project":"demo","required_update":null,"maintenance":[]},"#, count: 20).utf8)

    @Test func compressedBodiesInflateBackToTheOriginal() throws {
        for input in [[], Array("x".utf8), json, (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }] {
            let packed = try Gzip.compress(input)
            #expect(packed.prefix(2) == [0x1f, 0x8b], "a gzip member starts with the gzip magic")
            #expect(try Gzip.decompress(packed) == input)
        }
    }

    @Test func corruptTruncatedAndOversizedInputIsRefusedWithAReason() throws {
        let packed = try Gzip.compress(json)
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Array(packed.dropLast(10))) }
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(Array("not gzip at all".utf8)) }
        #expect(throws: Gzip.Failure.self) { try Gzip.decompress(packed, maxBytes: 100) }
    }

    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("deflate, gzip, br, zstd", true), ("x-gzip", true),
        ("gzip;q=0", false), ("gzip; q=0.000", false), ("gzip;q=0.001", true), ("gzip;Q=1.0", true),
        ("*", true), ("*;q=0", false), ("*;q=0.5, gzip;q=0", false), ("br, *;q=0.1", true),
        ("identity", false), ("", false), ("br", false), ("gzip;q=0.5, identity;q=1", false),
        ("gzip;q=1, identity;q=0.5", true), ("gzip;q=2", false), ("gzip;q=abc", false), (" , gzip ,", true),
    ])
    func acceptEncodingHonoursQValues(header: String, allows: Bool) {
        #expect(AcceptEncoding(header).allowsGzip == allows)
    }

    @Test func noAcceptEncodingHeaderMeansIdentity() {
        #expect(!AcceptEncoding(nil).allowsGzip)
    }

    @Test func largeBodiesAreGzippedWithEncodingAndVaryHeaders() throws {
        var response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: json)
        ResponseCompression().apply(to: &response, acceptEncoding: "gzip, br")
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(try Gzip.decompress(response.body) == json)
    }

    @Test func refusingClientsGetIdentityButStillVary() {
        var response = HTTPResponse(status: 200, body: json)
        ResponseCompression().apply(to: &response, acceptEncoding: "gzip;q=0")
        #expect(response.body == json)
        #expect(!response.headers.contains("Content-Encoding"))
        #expect(response.headers["Vary"] == "Accept-Encoding")
    }

    @Test func smallBodiesNotModifiedAndAlreadyEncodedResponsesAreLeftAlone() {
        let compression = ResponseCompression()
        let cases = [
            HTTPResponse(status: 200, body: Array(json.prefix(299))),
            HTTPResponse(status: 304, headers: ["ETag": "W/\"1\""]),
            HTTPResponse(status: 204),
            HTTPResponse(status: 200, headers: ["Content-Encoding": "br"], body: json),
            HTTPResponse(status: 200, headers: ["Content-Type": "image/png"], body: json),
        ]
        for original in cases {
            var response = original
            compression.apply(to: &response, acceptEncoding: "gzip")
            #expect(response.body == original.body)
            #expect(response.headers == original.headers)
        }
    }

    @Test func varyIsMergedNotDuplicated() {
        var response = HTTPResponse(status: 200, headers: ["Vary": "Origin"], body: json)
        ResponseCompression().apply(to: &response, acceptEncoding: "gzip")
        #expect(response.headers.values("Vary") == ["Origin, Accept-Encoding"])
        ResponseCompression().apply(to: &response, acceptEncoding: "gzip")
        #expect(response.headers.values("Vary") == ["Origin, Accept-Encoding"])
    }

    @Test func incompressibleBodiesStayIdentity() {
        var rng = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
        let noise = (0..<2000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        var response = HTTPResponse(status: 200, body: noise)
        ResponseCompression().apply(to: &response, acceptEncoding: "gzip")
        #expect(response.body == noise)
        #expect(!response.headers.contains("Content-Encoding"))
    }
}
