import HTTP
import HTTP2
import Testing

/// The push sender's request template and kept response fields, between a client and a server
/// session in memory.
@Suite struct HTTP2RequestTemplateTests {
    @Test func templateRequestsArriveAsTheWholeRequestWouldAndOnlyKeptFieldsComeBack() throws {
        let client = try HTTP2ClientSession(
            configuration: .init(scheme: "http", defaultAuthority: "gw:1", keptResponseFields: ["Retry-After"])
        )
        let server = try HTTP2ServerSession()
        let shape = HTTPRequest(
            method: "POST",
            target: "/3/device/",
            version: .http2,
            headers: ["apns-topic": "dev.lerix.demo", "Connection": "close"]
        )
        let template = HTTP2RequestTemplate(scheme: "http", authority: "gw:1", shape: shape)
        let first = try client.submit(template, pathSuffix: "ab12", body: Array("x".utf8))
        let second = try client.submit(template, pathSuffix: "cd34", body: [])
        var requests: [HTTPRequest] = []
        var responses: [Int32: HTTPResponse] = [:]
        for _ in 0..<20 {
            let toServer = client.takeOutput()
            for case .request(let id, let request) in server.feed(toServer) {
                requests.append(request)
                server.respond(HTTPResponse(status: 503, headers: ["Retry-After": "2", "X-Other": "y"]), to: id)
            }
            let toClient = server.takeOutput()
            toClient.withUnsafeBytes { bytes in
                client.feed(bytes) { event in
                    if case .response(let id, let response) = event { responses[id] = response }
                }
            }
            if toServer.isEmpty && toClient.isEmpty { break }
        }
        // The one without a body ends with its headers, so it may arrive first.
        #expect(requests.map(\.target).sorted() == ["/3/device/ab12", "/3/device/cd34"])
        let withBody = requests.first { $0.target == "/3/device/ab12" }
        #expect(withBody?.method == "POST")
        #expect(withBody?.headers["apns-topic"] == "dev.lerix.demo")
        #expect(
            withBody?.headers["connection"] == nil,
            "connection-specific fields are left out, as submit(_:) leaves them"
        )
        #expect(withBody?.body == Array("x".utf8))
        #expect(requests.first { $0.target == "/3/device/cd34" }?.body == [])
        #expect(responses[first]?.status == 503)
        #expect(responses[second]?.status == 503)
        #expect(responses[first]?.headers["retry-after"] == "2")
        #expect(responses[first]?.headers["x-other"] == nil, "a field not kept is not made")
    }

    /// Kept fields are matched by name in any case, and only by the whole name: a field of the
    /// same length spelled otherwise, or one that starts like a kept name, is not kept.
    @Test func keptFieldsMatchWholeNamesInAnyCase() throws {
        let client = try HTTP2ClientSession(
            configuration: .init(keptResponseFields: ["Retry-After", "apns-id"])
        )
        let server = try HTTP2ServerSession()
        let id = try client.submit(HTTPRequest(method: "POST", target: "/3/device/ab", body: Array("x".utf8)))
        var response: HTTPResponse?
        for _ in 0..<20 {
            let toServer = client.takeOutput()
            for case .request(let stream, _) in server.feed(toServer) {
                let fields: HTTPHeaders = [
                    "RETRY-AFTER": "3", "retry-aftex": "no", "apns-id-2": "no", "APNS-ID": "abc", "apns": "no",
                ]
                server.respond(HTTPResponse(status: 429, headers: fields), to: stream)
            }
            let toClient = server.takeOutput()
            toClient.withUnsafeBytes { bytes in
                client.feed(bytes) { event in
                    if case .response(id, let r) = event { response = r }
                }
            }
            if toServer.isEmpty && toClient.isEmpty { break }
        }
        let kept = try #require(response).headers
        #expect(kept["retry-after"] == "3")
        #expect(kept["apns-id"] == "abc")
        #expect(kept.count == 2, "only the two kept names: \(kept)")
    }
}
