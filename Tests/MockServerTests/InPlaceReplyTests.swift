import Dispatch
import HTTP
import JSON
import Synchronization
import Testing

@testable import MockServer

/// `replyAtOnce(to:late:)`, the in-process SDKs' way in, against `respond(to:reply:)`, the
/// HTTP servers': two servers from one seed on one virtual start take the same requests, one
/// each way, and give the same replies, journal lines, events and recording, byte for byte.
@Suite struct InPlaceReplyTests {
    /// A reply as bytes to compare: status, fields in order, body (or how it ended).
    static func text(_ reply: HTTPReply?) -> String {
        switch reply {
        case .response(let response)?:
            let fields = response.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
            return "\(response.status)\n\(fields)\n\n" + String(decoding: response.body, as: UTF8.self)
        case .close?: return "close"
        case .stream(let head, _)?: return "stream \(head.status)"
        case nil: return "nothing"
        }
    }

    /// Sends one request through `replyAtOnce`; a later reply (a delay fault) is waited for.
    static func atOnce(
        _ h: Harness,
        _ method: String,
        _ target: String,
        body: String? = nil,
        headers: [(String, String)] = []
    )
        -> (reply: HTTPReply?, late: Bool)
    {
        let later = Mutex<HTTPReply?>(nil)
        let done = DispatchSemaphore(value: 0)
        let request = Harness.request(method, target, body: body, headers: headers)
        if let reply = h.server.replyAtOnce(
            to: request,
            late: { reply in
                later.withLock { $0 = reply }
                done.signal()
            }
        ) {
            return (reply, false)
        }
        guard done.wait(timeout: .now() + 10) == .success else { return (nil, true) }
        return (later.withLock { $0 }, true)
    }

    /// The events a stream has been written so far, as text.
    static func written(_ stream: ResponseStream) -> String { String(decoding: stream.take().bytes, as: UTF8.self) }

    @Test func everyKindOfCheckAnswerIsTheSameInPlaceAsThroughRespond() throws {
        let viaRespond = try Harness()
        let inPlace = try Harness()
        var streams: [ResponseStream] = []
        for h in [viaRespond, inPlace] {
            #expect(h.post("/admin/recording", #"{"project": "demo"}"#).status == 201)
            guard case .stream(_, let stream)? = h.send("GET", "/admin/events?kinds=check,fault") else {
                Issue.record("no event stream")
                return
            }
            streams.append(stream)
        }
        let etag = try #require(viaRespond.check("platform=ios&version=1.0").header("ETag"))
        _ = inPlace.check("platform=ios&version=1.0")
        // (method, target, body, If-None-Match): a miss, a hit, a 304, a 422, a 404, each fault
        // the check path answers in place, a rule's change, and a route that is not a check.
        let steps: [(String, String, String?, String?)] = [
            ("GET", "/v1/projects/demo/release-control?platform=android", nil, nil),
            ("GET", "/v1/projects/demo/release-control?platform=android", nil, nil),
            ("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, etag),
            ("HEAD", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, nil),
            ("GET", "/v1/projects/demo/release-control?platform=windows", nil, nil),
            ("GET", "/v1/projects/ghost/release-control?platform=ios", nil, nil),
            ("POST", "/admin/projects/demo/faults", #"{"kind": "status", "status": 503, "retry_after": 7}"#, nil),
            ("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, etag),
            ("POST", "/admin/projects/demo/faults", #"{"kind": "reset"}"#, nil),
            ("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, nil),
            ("POST", "/admin/projects/demo/faults", #"{"kind": "malformed"}"#, nil),
            ("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, nil),
            ("POST", "/admin/projects/demo/faults", #"{"kind": "wrong_types"}"#, nil),
            ("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, nil),
            ("POST", "/admin/projects/demo/rules", #"{"type": "required_update", "below": "2.0"}"#, nil),
            ("GET", "/v1/projects/demo/release-control?platform=ios&version=1.0", nil, etag),
            ("GET", "/v1/projects/%64emo/release-control?platform=ios&version=1.0", nil, nil),
            ("GET", "/health", nil, nil),
            ("GET", "/nowhere", nil, nil),
        ]
        for (method, target, body, ifNoneMatch) in steps {
            let headers = ifNoneMatch.map { [("If-None-Match", $0)] } ?? []
            let expected = Self.text(viaRespond.send(method, target, body: body, headers: headers))
            let given = Self.atOnce(inPlace, method, target, body: body, headers: headers)
            #expect(!given.late, "\(method) \(target) was answered later")
            #expect(Self.text(given.reply) == expected, "\(method) \(target)")
            viaRespond.advance(seconds: 1)
            inPlace.advance(seconds: 1)
        }
        #expect(Self.written(streams[1]) == Self.written(streams[0]))
        #expect(inPlace.get("/admin/requests?limit=100").text == viaRespond.get("/admin/requests?limit=100").text)
        let recorded = viaRespond.delete("/admin/recording").text
        #expect(
            recorded.contains("fault: {kind: reset}") && recorded.contains("refresh: d1"),
            "the recording holds the checks: \(recorded)"
        )
        #expect(inPlace.delete("/admin/recording").text == recorded)
    }

    @Test func aDelayedCheckComesLaterToLateWithTheAnswerRespondGives() throws {
        let viaRespond = try Harness()
        let inPlace = try Harness()
        for h in [viaRespond, inPlace] {
            #expect(h.post("/admin/projects/demo/faults", #"{"kind": "delay", "seconds": 0.02}"#).status == 200)
        }
        let target = "/v1/projects/demo/release-control?platform=ios"
        let expected = Self.text(viaRespond.send("GET", target))
        let given = Self.atOnce(inPlace, "GET", target)
        #expect(given.late)
        #expect(expected.hasPrefix("200\n"))
        #expect(Self.text(given.reply) == expected)
        #expect(inPlace.get("/admin/requests").text == viaRespond.get("/admin/requests").text)
    }

    /// A responder with no way of its own answers through `respond`, the reply kept or sent on.
    @Test func theDefaultKeepsAReplyGivenAtOnceAndSendsALaterOneToLate() {
        struct Later: Responder {
            let queue = DispatchQueue(label: "later")
            func respond(to request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
                if request.target == "/now" { return reply(.response(HTTPResponse(status: 204))) }
                queue.asyncAfter(deadline: .now() + .milliseconds(10)) { reply(.response(HTTPResponse(status: 202))) }
            }
        }
        let responder = Later()
        let late = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let onLate: @Sendable (HTTPReply) -> Void = { reply in
            if case .response(let response) = reply { late.withLock { $0 = response.status } }
            done.signal()
        }
        #expect(
            Self.text(responder.replyAtOnce(to: HTTPRequest(method: "GET", target: "/now"), late: onLate))
                == "204\n\n\n"
        )
        #expect(responder.replyAtOnce(to: HTTPRequest(method: "GET", target: "/later"), late: onLate) == nil)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(late.withLock { $0 } == 202)
    }
}
