import HTTP
import Testing

@testable import HTTPServer

@Suite struct ResponseCachingTests {
    let caching = ResponseCaching()
    let document = Array(String(repeating: "the same document ", count: 40).utf8)

    func documentResponse() -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=60"],
            body: document
        )
    }

    @Test func aResponseThatSaysNothingIsNotStored() {
        var response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        caching.apply(to: &response, for: HTTPRequest(method: "GET", target: "/admin/projects"))
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["ETag"] == nil)
        var problem = HTTPResponse(status: 404, headers: ["Content-Type": "application/problem+json"])
        caching.apply(to: &problem, for: HTTPRequest(method: "GET", target: "/nope"))
        #expect(problem.headers["Cache-Control"] == "no-store")
    }

    @Test func aReusableDocumentGetsAWeakETagFromItsBody() {
        var first = documentResponse()
        var second = documentResponse()
        caching.apply(to: &first, for: HTTPRequest(method: "GET", target: "/"))
        caching.apply(to: &second, for: HTTPRequest(method: "HEAD", target: "/"))
        let etag = first.headers["ETag"]
        #expect(etag?.hasPrefix("W/\"2d0-") == true)
        #expect(second.headers["ETag"] == etag)
        #expect(first.headers["Cache-Control"] == "max-age=60")
        var changed = HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=60"], body: document + [0x21])
        caching.apply(to: &changed, for: HTTPRequest(method: "GET", target: "/"))
        #expect(changed.headers["ETag"] != etag)
    }

    @Test func ifNoneMatchNamingTheTagTurnsTheAnswerIntoA304WithTheSameMetadata() throws {
        var first = documentResponse()
        caching.apply(to: &first, for: HTTPRequest(method: "GET", target: "/"))
        let etag = try #require(first.headers["ETag"])
        var again = documentResponse()
        caching.apply(
            to: &again,
            for: HTTPRequest(method: "GET", target: "/", headers: ["If-None-Match": "\"other\", " + etag])
        )
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == etag)
        #expect(again.headers["Cache-Control"] == "max-age=60")
        #expect(again.headers["Content-Type"] == nil)
        var stale = documentResponse()
        caching.apply(
            to: &stale,
            for: HTTPRequest(method: "GET", target: "/", headers: ["If-None-Match": "W/\"2d0-0\""])
        )
        #expect(stale.status == 200)
        #expect(stale.body == document)
    }

    @Test func aResponders304LosesItsContentTypeButKeepsItsValidatorAndDirectives() {
        var check = HTTPResponse(
            status: 304,
            headers: [
                "Content-Type": "application/json", "ETag": "W/\"abc\"",
                "Cache-Control": "private, max-age=60", "Lerix-Server-Time": "t",
            ]
        )
        caching.apply(
            to: &check,
            for: HTTPRequest(method: "GET", target: "/v1", headers: ["If-None-Match": "W/\"abc\""])
        )
        #expect(check.headers["Content-Type"] == nil)
        #expect(check.headers["ETag"] == "W/\"abc\"")
        #expect(check.headers["Cache-Control"] == "private, max-age=60")
        #expect(check.headers["Lerix-Server-Time"] == "t")
    }

    @Test func responsesWithTheirOwnValidatorOrNoStoreOrNotA200ToAGetAreLeftAlone() {
        let conditional: HTTPHeaders = ["If-None-Match": "*"]
        var check = HTTPResponse(
            status: 200,
            headers: ["ETag": "W/\"abc\"", "Cache-Control": "private, max-age=300"],
            body: document
        )
        caching.apply(to: &check, for: HTTPRequest(method: "GET", target: "/v1", headers: conditional))
        #expect(check.status == 200)
        #expect(check.headers.values("ETag") == ["W/\"abc\""])
        var live = HTTPResponse(status: 200, headers: ["Cache-Control": "no-store"], body: document)
        caching.apply(to: &live, for: HTTPRequest(method: "GET", target: "/", headers: conditional))
        #expect(live.status == 200)
        #expect(live.headers["ETag"] == nil)
        var created = HTTPResponse(status: 201, headers: ["Cache-Control": "max-age=60"], body: document)
        caching.apply(to: &created, for: HTTPRequest(method: "GET", target: "/", headers: conditional))
        #expect(created.status == 201)
        #expect(created.headers["ETag"] == nil)
        var posted = documentResponse()
        caching.apply(to: &posted, for: HTTPRequest(method: "POST", target: "/", headers: conditional))
        #expect(posted.status == 200)
        #expect(posted.headers["ETag"] == nil)
    }

    /// finalize's touches on a 304 (the Vary it owes, no representation metadata) leave a 304
    /// that already has them as it is: fields shared with a responder's memo are not copied.
    @Test func aFinished304ThatSaysVaryAlreadyKeepsItsFieldsUncopied() {
        let context = ServerContext(
            configuration: .init(host: "127.0.0.1", port: 0),
            responder: Unanswering(),
            log: nil,
            http2: nil
        )
        let memo = HTTPResponse(
            status: 304,
            headers: [
                "ETag": "W/\"abc\"", "Cache-Control": "private, max-age=300", "Vary": "Accept-Encoding",
            ]
        )
        var sent = memo
        context.finalize(&sent, for: HTTPRequest(method: "GET", target: "/", headers: ["If-None-Match": "W/\"abc\""]))
        #expect(sent.headers == memo.headers)
        #expect(Self.sameStorage(sent.headers.fields, memo.headers.fields))
        var without = HTTPResponse(status: 304, headers: ["ETag": "W/\"abc\"", "Cache-Control": "max-age=60"])
        context.finalize(&without, for: HTTPRequest(method: "GET", target: "/"))
        #expect(without.headers.values("Vary") == ["Accept-Encoding"], "a 304 without it gets it")
    }

    private struct Unanswering: Responder {
        func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {}
    }

    static func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }
}
