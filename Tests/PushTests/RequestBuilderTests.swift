import HTTP
import JSON
import Testing

@testable import Push

@Suite struct RequestBuilderTests {
    @Test func apnsRequestMatchesTheContractByteForByte() {
        let token = "3f1a9c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a"
        let request = APNsRequest.silentPush(token: token, topic: "dev.lerix.demo")
        #expect(request.method == "POST")
        #expect(request.target == "/3/device/" + token)
        #expect(
            request.headers.fields.map { "\($0.name): \($0.value)" } == [
                "apns-push-type: background", "apns-priority: 5", "apns-topic: dev.lerix.demo",
            ]
        )
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"aps":{"content-available":1},"lerix":{"kind":"release_control"}}"#
        )
    }

    @Test func fcmRequestMatchesTheContractByteForByte() {
        let request = FCMRequest.silentPush(token: "fcm-token-1", project: "demo")
        #expect(request.method == "POST")
        #expect(request.target == "/v1/projects/demo/messages:send")
        #expect(request.headers["content-type"] == "application/json")
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"message":{"token":"fcm-token-1","data":{"lerix":"release_control"},"android":{"priority":"high"}}}"#
        )
    }

    @Test func fcmBodyEscapesTheTokenAsJSON() {
        let body = String(decoding: FCMRequest.body(token: "a\"b\\c"), as: UTF8.self)
        #expect(
            body == #"{"message":{"token":"a\"b\\c","data":{"lerix":"release_control"},"android":{"priority":"high"}}}"#
        )
    }

    @Test func tokensAndProjectsArePercentEncodedInThePathOnlyWhenNeeded() {
        #expect(APNsRequest.silentPush(token: "ab/cd ef", topic: "t").target == "/3/device/ab%2Fcd%20ef")
        #expect(
            FCMRequest.silentPush(token: "x", project: "my project").target == "/v1/projects/my%20project/messages:send"
        )
    }

    /// Every ASCII character is checked against RFC 3986's unreserved set as written (the
    /// encoder tests bits of two words), and bytes past ASCII are always escaped.
    @Test func exactlyTheUnreservedCharactersPassThroughAPathSegment() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for b in UInt8(0)...UInt8(127) {
            let text = String(decoding: [b], as: UTF8.self)
            let hex = String(b, radix: 16, uppercase: true)
            let expected = unreserved.contains(b) ? text : "%" + (hex.count == 1 ? "0" + hex : hex)
            #expect(PathSegment.encode(text) == expected, "byte \(b)")
            #expect(PathSegment.encode("ab" + text + "cd") == "ab" + expected + "cd", "byte \(b) inside")
        }
        #expect(PathSegment.encode("é~") == "%C3%A9~")
        #expect(
            PathSegment.encode(String(repeating: "0123456789abcdef", count: 4))
                == String(repeating: "0123456789abcdef", count: 4)
        )
    }

    /// The body is the same bytes whether the token is copied whole or escaped by the JSON
    /// writer: every ASCII character and a few past it, alone and inside a token.
    @Test func fcmBodyIsTheJSONWritersBytesForEveryCharacter() {
        var tokens = (UInt8(0)...UInt8(127)).map { String(decoding: [$0], as: UTF8.self) }
        tokens += ["", "é", "fcm-token-00000001", "a\u{1F}b", "ü\"ö"]
        for token in tokens {
            var expected = FCMRequest.bodyPrefix
            JSON.writeString(token, into: &expected)
            expected += FCMRequest.bodySuffix
            #expect(FCMRequest.body(token: token) == expected, "token \(Array(token.utf8))")
            #expect(FCMRequest.body(token: "x" + token + "y").count == expected.count + 2)
        }
    }

    @Test func aGatewayPathPrefixGoesBeforeEveryPath() {
        #expect(APNsRequest.silentPush(token: "ab", topic: "t", pathPrefix: "/apns").target == "/apns/3/device/ab")
    }

    @Test func platformsMapToTheirProvider() {
        #expect(PushProvider.serving(platform: "ios") == .apns)
        #expect(PushProvider.serving(platform: "macos") == .apns)
        #expect(PushProvider.serving(platform: "android") == .fcm)
        #expect(PushProvider.serving(platform: "web") == nil)
    }
}

/// Gateway URLs are ``HTTPURL``s with one rule more (no query or fragment).
@Suite struct GatewayURLTests {
    @Test func parsesHostPortAndPrefix() throws {
        let url = try GatewayPushSink.Configuration.gatewayURL("http://127.0.0.1:9443/base/")
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 9443)
        #expect(url.pathPrefix == "/base")
        #expect(url.authority == "127.0.0.1:9443")
    }

    @Test func defaultsToPort80AndAcceptsIPv6() throws {
        #expect(try GatewayPushSink.Configuration.gatewayURL("http://gateway").port == 80)
        let v6 = try GatewayPushSink.Configuration.gatewayURL("http://[::1]:8081")
        #expect(v6.host == "::1")
        #expect(v6.port == 8081)
        #expect(v6.authority == "[::1]:8081")
    }

    @Test func httpsMeansTLSOnPort443UnlessGiven() throws {
        let apns = try GatewayPushSink.Configuration.gatewayURL("https://api.sandbox.push.apple.com")
        #expect(apns.isSecure && apns.port == 443 && apns.authority == "api.sandbox.push.apple.com")
        #expect(apns.description == "https://api.sandbox.push.apple.com")
        let local = try GatewayPushSink.Configuration.gatewayURL("https://127.0.0.1:9443/base")
        #expect(local.isSecure && local.port == 9443 && local.pathPrefix == "/base")
        #expect(try !GatewayPushSink.Configuration.gatewayURL("http://127.0.0.1:9443").isSecure)
    }

    @Test func refusesOtherSchemesAndBadPorts() {
        #expect(throws: HTTPURLError.self) { try GatewayPushSink.Configuration.gatewayURL("ftp://x") }
        #expect(throws: HTTPURLError.self) { try GatewayPushSink.Configuration.gatewayURL("http://x:99999") }
        #expect(throws: HTTPURLError.self) { try GatewayPushSink.Configuration.gatewayURL("http://x:abc") }
        #expect(throws: HTTPURLError.self) { try GatewayPushSink.Configuration.gatewayURL("http://:80") }
        #expect(throws: HTTPURLError.self) { try GatewayPushSink.Configuration.gatewayURL("http://x/?q=1") }
    }
}
