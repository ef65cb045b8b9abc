import Clock
import HTTP
import JSON
import Synchronization
import Testing

@testable import Push

/// The gateway's provider checks and controls, called directly (no sockets).
@Suite struct PushGatewayTests {
    static let token = "3f1a9c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c0e2b4d6f8a0c2e4b6d8f0a"
    let clock = ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)
    /// Control writes take JSON only (a page on another site cannot send that type).
    static let json: HTTPHeaders = ["Content-Type": "application/json"]

    func send(_ gateway: PushGateway, _ request: HTTPRequest) -> HTTPResponse {
        let box = Mutex<HTTPResponse?>(nil)
        gateway.respond(to: request) { reply in
            if case .response(let r) = reply { box.withLock { $0 = r } }
        }
        return box.withLock { $0 } ?? HTTPResponse(status: 0)
    }

    func apns(_ mutate: (inout HTTPRequest) -> Void = { _ in }) -> HTTPRequest {
        var request = APNsRequest.silentPush(token: Self.token, topic: "dev.lerix.demo")
        mutate(&request)
        return request
    }

    func json(_ response: HTTPResponse) -> JSON { (try? JSON.parse(response.body)) ?? .null }

    func reason(_ response: HTTPResponse) -> String? { json(response)["reason"]?.stringValue }

    @Test func acceptsTheContractsAPNsRequestAndRecordsIt() {
        let gateway = PushGateway(scheduler: clock)
        let response = send(gateway, apns())
        #expect(response.status == 200)
        #expect(response.headers["apns-id"]?.utf8.count == 36)
        let delivery = gateway.deliveries.first
        #expect(delivery?.provider == .apns)
        #expect(delivery?.token == Self.token)
        #expect(delivery?.topic == "dev.lerix.demo")
        #expect(delivery?.priority == "5")
        #expect(delivery?.at == clock.now)
    }

    @Test func refusesAPNsRequestsWithAPNsReasons() {
        let gateway = PushGateway(scheduler: clock)
        let cases: [(HTTPRequest, Int, String)] = [
            (apns { $0.target = "/3/device/xyz-not-hex" }, 400, "BadDeviceToken"),
            (apns { $0.target = "/3/device/" }, 400, "MissingDeviceToken"),
            (apns { $0.target = "/3/other/" + Self.token }, 404, "BadPath"),
            (apns { $0.method = "GET" }, 405, "MethodNotAllowed"),
            (apns { $0.headers.remove("apns-topic") }, 400, "MissingTopic"),
            (apns { $0.headers.add("apns-topic", "again") }, 400, "DuplicateHeaders"),
            (apns { $0.headers.set("apns-push-type", "shout") }, 400, "InvalidPushType"),
            (apns { $0.headers.set("apns-priority", "10") }, 400, "BadPriority"),
            (apns { $0.headers.remove("apns-priority") }, 400, "BadPriority"),
            (apns { $0.headers.set("apns-priority", "7") }, 400, "BadPriority"),
            (apns { $0.headers.set("apns-expiration", "soon") }, 400, "BadExpirationDate"),
            (apns { $0.headers.set("apns-id", "nope") }, 400, "BadMessageId"),
            (apns { $0.body = [] }, 400, "PayloadEmpty"),
            (
                apns {
                    $0.body =
                        Array(#"{"aps":{"content-available":1},"pad":""#.utf8) + Array(repeating: 0x61, count: 4096)
                        + Array("\"}".utf8)
                },
                413, "PayloadTooLarge"
            ),
            (apns { $0.body = Array("not json".utf8) }, 400, "BadPayload"),
            (apns { $0.body = Array(#"{"aps":{"alert":"hi"}}"#.utf8) }, 400, "BadPayload"),
            (apns { $0.body = Array(#"{"lerix":{}}"#.utf8) }, 400, "BadPayload"),
        ]
        for (request, status, expected) in cases {
            let response = send(gateway, request)
            #expect(response.status == status, "\(request.target) \(expected)")
            #expect(reason(response) == expected)
            #expect(response.headers["content-type"] == "application/json")
        }
        #expect(gateway.deliveries.isEmpty)
    }

    /// Only Lerix's own payload, byte for byte, is taken as known good without parsing: one of
    /// its length that differs anywhere (a word or the odd byte past the last word) is parsed.
    @Test func onlyLerixsOwnPayloadByteForByteSkipsTheParse() {
        let lerix = APNsRequest.body
        #expect(APNsValidator.isLerixPayload(Array(lerix)))
        for position in [0, 7, 8, lerix.count / 2, lerix.count - 1] {
            var other = lerix
            other[position] ^= 0x01
            #expect(!APNsValidator.isLerixPayload(other), "byte \(position) differs")
        }
        #expect(!APNsValidator.isLerixPayload(Array(lerix.dropLast())))
        #expect(!APNsValidator.isLerixPayload(lerix + [0x20]))
        #expect(!APNsValidator.isLerixPayload([]))
        // Same length, content-available 2: parsed, and refused.
        let two = Array(#"{"aps":{"content-available":2},"lerix":{"kind":"release_control"}}"#.utf8)
        #expect(two.count == lerix.count)
        #expect(reason(send(PushGateway(scheduler: clock), apns { $0.body = two })) == "BadPayload")
    }

    /// Every way a provider request ends (accepted, refused by a check, an outage's turn, an
    /// armed rejection, a delayed answer) counts it in once and out of flight once.
    @Test func everyAnsweredPushLeavesFlightOnceWhateverItsAnswer() {
        let gateway = PushGateway(scheduler: clock)
        func stats() -> JSON { json(send(gateway, HTTPRequest(method: "GET", target: "/stats"))) }
        #expect(send(gateway, apns()).status == 200)
        #expect(send(gateway, apns { $0.body = [] }).status == 400)
        gateway.setUnavailable(status: 503, count: 1)
        #expect(send(gateway, apns()).status == 503)
        gateway.reject(token: Self.token, status: 410, count: 1)
        #expect(send(gateway, apns()).status == 410)
        #expect(send(gateway, FCMRequest.silentPush(token: "fcm-1", project: "demo")).status == 200)
        var shown = stats()
        #expect(shown["requests"]?.intValue == 5)
        #expect(shown["accepted"]?.intValue == 2)
        #expect(shown["refused"]?.intValue == 3)
        #expect(shown["in_flight"]?.intValue == 0)
        #expect(shown["max_in_flight"]?.intValue == 1)
        // A delayed request is in flight until its clock comes, and takes the outage armed meanwhile.
        gateway.setDelay(milliseconds: 100)
        let status = Mutex<Int?>(nil)
        gateway.respond(to: apns()) { reply in
            if case .response(let r) = reply { status.withLock { $0 = r.status } }
        }
        #expect(stats()["in_flight"]?.intValue == 1)
        gateway.setUnavailable(status: 503, count: 1)
        clock.advance(to: clock.now.adding(milliseconds: 100))
        #expect(status.withLock { $0 } == 503)
        shown = stats()
        #expect(shown["requests"]?.intValue == 6)
        #expect(shown["refused"]?.intValue == 4)
        #expect(shown["in_flight"]?.intValue == 0)
        #expect(gateway.controls.outage == nil)
    }

    @Test func aPayloadOfExactly4096BytesIsAccepted() {
        let gateway = PushGateway(scheduler: clock)
        let prefix = Array(#"{"aps":{"content-available":1},"pad":""#.utf8)
        let body = prefix + Array(repeating: 0x61, count: 4096 - prefix.count - 2) + Array("\"}".utf8)
        #expect(body.count == 4096)
        #expect(send(gateway, apns { $0.body = body }).status == 200)
    }

    @Test func acceptsTheContractsFCMRequestAndAnswersWithAMessageName() {
        let gateway = PushGateway(scheduler: clock)
        let response = send(gateway, FCMRequest.silentPush(token: "fcm-1", project: "demo"))
        #expect(response.status == 200)
        #expect(json(response)["name"]?.stringValue == "projects/demo/messages/1")
        #expect(gateway.deliveries.first?.provider == .fcm)
        #expect(gateway.deliveries.first?.project == "demo")
        #expect(gateway.deliveries.first?.priority == "high")
    }

    func fcm(_ body: String, path: String = "/v1/projects/demo/messages:send") -> HTTPRequest {
        HTTPRequest(method: "POST", target: path, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }

    @Test func refusesFCMRequestsInGooglesErrorForm() {
        let gateway = PushGateway(scheduler: clock)
        let bad: [(String, String)] = [
            (#"{"message":{"token":"t","notification":{"title":"hi"}}}"#, "notification"),
            (#"{"message":{"token":"t","data":{"n":1}}}"#, "TYPE_STRING"),
            (#"{"message":{"token":"t","data":{"from":"x"}}}"#, "reserved"),
            (#"{"message":{"token":"t","data":{"message_type":"x"}}}"#, "reserved"),
            (#"{"message":{"token":"t","data":{"google.x":"x"}}}"#, "reserved"),
            (#"{"message":{"token":"t","data":{"gcm.n.e":"1"}}}"#, "reserved"),
            (#"{"message":{"token":"t","android":{"priority":"urgent"}}}"#, "android.priority"),
            (#"{"message":{"token":"","data":{}}}"#, "registration token"),
            (#"{"message":{"data":{}}}"#, "token"),
            (#"{"message":{"token":"t","colour":"red"}}"#, "Unknown name \"colour\""),
            (#"{"msg":{}}"#, "Unknown name \"msg\""),
            (#"{"message":"#, "Invalid JSON payload"),
        ]
        for (body, fragment) in bad {
            let response = send(gateway, fcm(body))
            let error = json(response)["error"]
            #expect(response.status == 400, "\(body)")
            #expect(error?["code"]?.intValue == 400)
            #expect(error?["status"]?.stringValue == "INVALID_ARGUMENT")
            #expect(
                error?["message"]?.stringValue?.contains(fragment) == true,
                "\(body): \(error?["message"]?.stringValue ?? "")"
            )
            #expect(
                error?["details"]?.arrayValue?.first?["@type"]?.stringValue
                    == "type.googleapis.com/google.firebase.fcm.v1.FcmError"
            )
            #expect(error?["details"]?.arrayValue?.first?["errorCode"]?.stringValue == "INVALID_ARGUMENT")
        }
        #expect(send(gateway, fcm("{}", path: "/v1/projects/demo/other")).status == 404)
        #expect(gateway.deliveries.isEmpty)
    }

    @Test func rejectedTokensGetTheProvidersUnregisteredAnswers() {
        let gateway = PushGateway(scheduler: clock)
        gateway.reject(token: Self.token, status: 410)
        gateway.reject(token: "gone", status: 404)
        let apnsResponse = send(gateway, apns())
        #expect(apnsResponse.status == 410)
        #expect(reason(apnsResponse) == "Unregistered")
        #expect(json(apnsResponse)["timestamp"]?.intValue == Int(clock.now.millisecondsSinceEpoch))
        let fcmResponse = send(gateway, FCMRequest.silentPush(token: "gone", project: "demo"))
        #expect(fcmResponse.status == 404)
        #expect(json(fcmResponse)["error"]?["status"]?.stringValue == "NOT_FOUND")
        #expect(json(fcmResponse)["error"]?["details"]?.arrayValue?.first?["errorCode"]?.stringValue == "UNREGISTERED")
        #expect(gateway.deliveries.isEmpty)
    }

    @Test func aCountedRejectionRunsOutThenTheTokenIsAcceptedAgain() {
        let gateway = PushGateway(scheduler: clock)
        gateway.reject(token: Self.token, status: 429, count: 1)
        #expect(send(gateway, apns()).status == 429)
        #expect(send(gateway, apns()).status == 200)
    }

    @Test func anOutageAnswersEveryPushWithRetryAfter() {
        let gateway = PushGateway(scheduler: clock)
        gateway.setUnavailable(status: 503, retryAfterSeconds: 2, count: 2)
        let first = send(gateway, apns())
        #expect(first.status == 503)
        #expect(reason(first) == "ServiceUnavailable")
        #expect(first.headers["retry-after"] == "2")
        let second = send(gateway, FCMRequest.silentPush(token: "t", project: "p"))
        #expect(second.status == 503)
        #expect(json(second)["error"]?["status"]?.stringValue == "UNAVAILABLE")
        #expect(send(gateway, apns()).status == 200)
    }

    @Test func aDelayedGatewayAnswersWhenItsClockGetsThere() {
        let gateway = PushGateway(scheduler: clock)
        gateway.setDelay(milliseconds: 500)
        let box = Mutex<Int?>(nil)
        gateway.respond(to: apns()) { reply in
            if case .response(let r) = reply { box.withLock { $0 = r.status } }
        }
        #expect(box.withLock { $0 } == nil)
        #expect(gateway.maxInFlight == 1)
        clock.advance(to: clock.now.adding(milliseconds: 500))
        #expect(box.withLock { $0 } == 200)
    }

    @Test func theDeliveryHookSeesEachAcceptedPush() {
        let gateway = PushGateway(scheduler: clock)
        let seen = Mutex<[String]>([])
        gateway.setDeliveryHandler { d in seen.withLock { $0.append("\(d.provider.rawValue):\(d.token)") } }
        _ = send(gateway, apns())
        _ = send(gateway, FCMRequest.silentPush(token: "a1", project: "demo"))
        _ = send(gateway, apns { $0.headers.set("apns-priority", "10") })
        #expect(seen.withLock { $0 } == ["apns:\(Self.token)", "fcm:a1"])
    }

    @Test func controlEndpointsDriveTheSameControls() {
        let gateway = PushGateway(scheduler: clock)
        let reject = send(
            gateway,
            HTTPRequest(
                method: "POST",
                target: "/control/reject",
                headers: Self.json,
                body: Array(#"{"token":"t1","status":410,"reason":"ExpiredToken"}"#.utf8)
            )
        )
        #expect(reject.status == 204)
        #expect(
            gateway.controls.rejections["t1"]
                == GatewayControls.Rejection(status: 410, reason: "ExpiredToken", remaining: nil)
        )
        #expect(send(gateway, HTTPRequest(method: "POST", target: "/control/unavailable", body: [])).status == 204)
        #expect(gateway.controls.outage?.status == 503)
        #expect(
            send(
                gateway,
                HTTPRequest(
                    method: "POST",
                    target: "/control/delay",
                    headers: Self.json,
                    body: Array(#"{"milliseconds":20}"#.utf8)
                )
            ).status == 204
        )
        #expect(gateway.controls.delayMilliseconds == 20)
        let shown = json(send(gateway, HTTPRequest(method: "GET", target: "/control")))
        #expect(shown["unavailable"]?["status"]?.intValue == 503)
        #expect(send(gateway, HTTPRequest(method: "DELETE", target: "/control")).status == 204)
        #expect(gateway.controls == GatewayControls())
        #expect(
            send(
                gateway,
                HTTPRequest(method: "POST", target: "/control/reject", headers: Self.json, body: Array("{".utf8))
            ).status == 400
        )
        #expect(
            send(
                gateway,
                HTTPRequest(
                    method: "POST",
                    target: "/control/reject",
                    headers: Self.json,
                    body: Array(#"{"token":"x","status":200}"#.utf8)
                )
            ).status == 422
        )
        let wrongMethod = send(gateway, HTTPRequest(method: "PUT", target: "/control/reject"))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "POST, DELETE")
        #expect(send(gateway, HTTPRequest(method: "GET", target: "/nowhere")).status == 404)
    }

    @Test func deliveriesAreListedFilteredAndCleared() {
        let gateway = PushGateway(scheduler: clock, maxRecordedDeliveries: 2)
        _ = send(gateway, FCMRequest.silentPush(token: "a", project: "demo"))
        _ = send(gateway, FCMRequest.silentPush(token: "b", project: "demo"))
        _ = send(gateway, apns())
        let all = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries")))
        #expect(all["deliveries"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == ["b", Self.token])
        #expect(all["total"]?.intValue == 3)
        #expect(all["dropped"]?.intValue == 1)
        #expect(all["deliveries"]?.arrayValue?.last?["payload"]?["aps"]?["content-available"]?.intValue == 1)
        let onlyFCM = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries?provider=fcm")))
        #expect(onlyFCM["deliveries"]?.arrayValue?.count == 1)
        #expect(send(gateway, HTTPRequest(method: "DELETE", target: "/deliveries")).status == 204)
        #expect(gateway.deliveries.isEmpty)
        #expect(gateway.deliveredCount == 0)
    }

    /// Issue 12, point 8: one answer never holds the whole log (250k records were one 1.4 GB answer).
    @Test func deliveriesArePagedOldestFirstWithACursorAndABoundedDefault() {
        let gateway = PushGateway(scheduler: clock, maxRecordedDeliveries: 3000)
        for i in 0..<2500 {
            _ = send(gateway, FCMRequest.silentPush(token: "t\(i)", project: i % 2 == 0 ? "even" : "odd"))
        }
        let first = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries")))
        #expect(first["deliveries"]?.arrayValue?.count == 1000)
        #expect(first["deliveries"]?.arrayValue?.first?["seq"] == 1)
        #expect(first["deliveries"]?.arrayValue?.first?["token"] == "t0")
        #expect(first["next"] == "/deliveries?after=1000&limit=1000")
        #expect(first["total"] == 2500)

        // Following `next` visits every delivery once, in order, and ends with null.
        var seen: [String] = []
        var target: String? = "/deliveries?limit=700"
        var pages = 0
        while let t = target, pages < 10 {
            let page = json(send(gateway, HTTPRequest(method: "GET", target: t)))
            seen += page["deliveries"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? []
            target = page["next"]?.stringValue
            pages += 1
        }
        #expect(pages == 4)
        #expect(seen == (0..<2500).map { "t\($0)" })

        // Filters carry over into the next link.
        let fcm = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries?provider=fcm&token=t7&limit=1")))
        #expect(fcm["deliveries"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == ["t7"])
        #expect(fcm["next"] == .null)
        let tail = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries?after=2498")))
        #expect(tail["deliveries"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == [2499, 2500])

        for bad in ["limit=0", "limit=10001", "limit=x", "after=-1"] {
            #expect(send(gateway, HTTPRequest(method: "GET", target: "/deliveries?" + bad)).status == 400, "\(bad)")
        }
    }

    @Test func cursorsStayValidWhenTheRingDropsAndAfterAClear() {
        let gateway = PushGateway(scheduler: clock, maxRecordedDeliveries: 4)
        for i in 0..<10 { _ = send(gateway, FCMRequest.silentPush(token: "t\(i)", project: "demo")) }
        let page = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries?after=2&limit=2")))
        // Deliveries 1-6 were dropped: the page starts at the oldest kept one.
        #expect(page["deliveries"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == [7, 8])
        #expect(page["dropped"] == 6)
        #expect(send(gateway, HTTPRequest(method: "DELETE", target: "/deliveries")).status == 204)
        _ = send(gateway, FCMRequest.silentPush(token: "new", project: "demo"))
        let after = json(send(gateway, HTTPRequest(method: "GET", target: "/deliveries?after=10")))
        #expect(after["deliveries"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == ["new"])
    }

    @Test func theContractsFCMBodyIsReadWithoutAFullParseAndAnythingElseGetsTheFullCheck() {
        #expect(FCMValidator.canonicalToken(FCMRequest.body(token: "abc")) == "abc")
        #expect(FCMValidator.canonicalToken(FCMRequest.body(token: "a\"b")) == nil)
        #expect(FCMValidator.canonicalToken(Array(#"{"message":{"token":"abc","data":{}}}"#.utf8)) == nil)
        let escaped = FCMValidator.validate(FCMRequest.silentPush(token: "a\"b", project: "demo"))
        #expect((try? escaped.get())?.token == "a\"b")
        let withExtra = FCMValidator.validate(
            fcm(#"{"message":{"token":"t","data":{"lerix":"release_control","from":"x"}}}"#)
        )
        #expect((try? withExtra.get()) == nil)
    }

    @Test func answerIdsAndNamesAreWrittenByteForByte() {
        #expect(PushGateway.uuid(1) == "00000000-0000-0000-0000-000000000001")
        #expect(PushGateway.uuid(0xabcd_ef01_2345_6789) == "00000000-0000-0000-abcd-ef0123456789")
        #expect(PushGateway.uuid(0) == "00000000-0000-0000-0000-000000000000")
        #expect(PushGateway.uuid(.max) == "00000000-0000-0000-ffff-ffffffffffff")
        #expect(
            String(decoding: PushGateway.messageName(project: "demo", message: 1207), as: UTF8.self)
                == #"{"name":"projects/demo/messages/1207"}"#
        )
        #expect(
            String(decoding: PushGateway.messageName(project: #"a"b"#, message: 0), as: UTF8.self)
                == #"{"name":"projects/a\"b/messages/0"}"#
        )
        #expect(PushGateway.priorityText(5) == "5" && PushGateway.priorityText(7) == "7")
    }

    @Test func targetsOfTheUsualShapeAreReadInPlaceAndOthersBySegments() {
        #expect(RequestTarget.plainSegment("/3/device/ab12", after: "/3/device/") == "ab12")
        #expect(RequestTarget.plainSegment("/3/device/", after: "/3/device/") == nil, "no segment")
        #expect(RequestTarget.plainSegment("/3/device/a/b", after: "/3/device/") == nil)
        #expect(RequestTarget.plainSegment("/3/device/a%62", after: "/3/device/") == nil, "an escape: read by segments")
        #expect(RequestTarget.plainSegment("/3/device/ab?x", after: "/3/device/") == nil)
        #expect(
            RequestTarget.plainSegment(
                "/v1/projects/demo/messages:send",
                after: "/v1/projects/",
                before: "/messages:send"
            ) == "demo"
        )
        #expect(
            RequestTarget.plainSegment(
                "/v1/projects/demo/messages:sendx",
                after: "/v1/projects/",
                before: "/messages:send"
            ) == nil
        )
        // The segment route still decides what the fast path does not take.
        #expect(
            (try? FCMValidator.validate(FCMRequest.silentPush(token: "t", project: "my app")).get())?.project
                == "my app"
        )
        #expect(
            (try? APNsValidator.validate(apns { $0.target = "/3//device/" + Self.token }).get())?.token == Self.token
        )
    }

    @Test func percentEncodedPathSegmentsAreDecodedAndBadEscapesRefused() {
        let gateway = PushGateway(scheduler: clock)
        let encoded = apns { $0.target = "/3/device/" + Self.token.replacingFirstByte(with: "%33") }
        #expect(send(gateway, encoded).status == 200)
        #expect(gateway.deliveries.first?.token == Self.token)
        #expect(reason(send(gateway, apns { $0.target = "/3/device/%zz" })) == "BadPath")
        #expect(
            RequestTarget.segments("/v1/projects/my%20app/messages:send?x=1") == [
                "v1", "projects", "my app", "messages:send",
            ]
        )
    }
}

extension String {
    /// The string with its first character (ASCII) replaced by `text`.
    func replacingFirstByte(with text: String) -> String { text + String(dropFirst()) }
}
