import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// The token registration and the ingest requests are written byte by byte into one buffer each:
/// their URLs percent-encode the project and the token exactly as RFC 3986 spells it, and the
/// token's body is the serialized `{"platform": …}` object.
@Suite struct RequestBytesTests {
    static let now = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    static func requests(project: String, token: String) throws -> [TransportRequest] {
        let config = LerixConfiguration(
            baseURL: try #require(URL(string: "http://lerix.test:8080/base")),
            project: project,
            platform: .macos,
            appVersion: "2.3.0",
            pushToken: token
        )
        var machine = ReleaseControlMachine(configuration: config, saved: SavedAnswer())
        let answer: JSON = ["project": "x", "server_time": "2026-12-02T11:00:00.000Z", "lifetime": 300]
        let ok = TransportResult.success(TransportResponse(status: 200, body: answer.serialized()))
        var actions = machine.handle(.launch, now: now)
        actions += machine.handle(.completed(.check, ok), now: now)
        actions += machine.handle(.track(.analytics, [["n": 1]]), now: now)
        return actions.compactMap { if case .send(let request, _) = $0 { request } else { nil } }
    }

    @Test func theTokenRegistrationIsSpelledByteForByte() throws {
        let sent = try Self.requests(project: "my app/é", token: "a+b/c d~_.-Z9")
        let registration = try #require(sent.first { $0.method == "PUT" })
        #expect(
            registration.url
                == "http://lerix.test:8080/base/v1/projects/my%20app%2F%C3%A9/push-tokens/a%2Bb%2Fc%20d~_.-Z9"
        )
        #expect(registration.headers.map(\.name) == ["Content-Type"])
        #expect(registration.header("Content-Type") == "application/json")
        #expect(registration.body == JSON.object([("platform", "macos")]).serialized())
        #expect(registration.body == Array(#"{"platform":"macos"}"#.utf8))
    }

    @Test func aPlainTokenAndProjectAreCopiedWhole() throws {
        let token = String(repeating: "0123456789abcdef", count: 4)
        let sent = try Self.requests(project: "demo", token: token)
        let registration = try #require(sent.first { $0.method == "PUT" })
        #expect(registration.url == "http://lerix.test:8080/base/v1/projects/demo/push-tokens/" + token)
    }

    @Test func theIngestURLNamesTheModule() throws {
        let sent = try Self.requests(project: "my app", token: "t")
        let ingest = try #require(sent.first { $0.method == "POST" })
        #expect(ingest.url == "http://lerix.test:8080/base/v1/projects/my%20app/ingest/analytics")
        #expect(ingest.body == Array(#"[{"n":1}]"#.utf8))
    }

    /// Every ASCII byte and a two-byte letter in a token: only RFC 3986's unreserved characters
    /// stay as they are, everything else is %XX in capitals.
    @Test func everyByteIsEncodedAsRFC3986Says() throws {
        let ascii = (1...0x7F).map { Character(Unicode.Scalar(UInt8($0))) }
        let token = String(ascii) + "é"
        var expected = ""
        for byte in token.utf8 {
            let unreserved = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".utf8
            if unreserved.contains(byte) {
                expected.append(Character(Unicode.Scalar(byte)))
            } else {
                expected += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        let sent = try Self.requests(project: "demo", token: token)
        let registration = try #require(sent.first { $0.method == "PUT" })
        #expect(registration.url == "http://lerix.test:8080/base/v1/projects/demo/push-tokens/" + expected)
    }
}
