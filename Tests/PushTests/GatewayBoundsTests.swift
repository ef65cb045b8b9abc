import Clock
import HTTP
import JSON
import Synchronization
import Testing

@testable import Push

/// The push gateway bounded in bytes, not only in count (issue 42 item 9): a kept FCM delivery
/// once cost 16.7 KB, so the default 200,000 came to about 3.2 GB; one `GET /deliveries` page
/// built 166 MB; `/control/reject` took any number of tokens of any size and `GET /control`
/// answered 45 MB from 120 of them.
@Suite struct GatewayBoundsTests {
    let clock = ManualScheduler(now: Instant(rfc3339: "2026-12-02T11:00:00.000Z")!)

    func send(_ gateway: PushGateway, _ request: HTTPRequest) -> HTTPResponse {
        let box = Mutex<HTTPResponse?>(nil)
        gateway.respond(to: request) { reply in
            if case .response(let r) = reply { box.withLock { $0 = r } }
        }
        return box.withLock { $0 } ?? HTTPResponse(status: 0)
    }

    func delivery(_ i: Int, bytes: Int) -> GatewayDelivery {
        GatewayDelivery(provider: .fcm, token: "t\(i)", at: clock.now, body: [UInt8](repeating: 0x61, count: bytes))
    }

    @Test func theLogKeepsAtMostItsBytesDroppingTheOldest() {
        var log = DeliveryLog(capacity: 200_000, maxBytes: 2 << 20)
        for i in 0..<100 { log.append(delivery(i, bytes: 100_000)) }
        #expect(log.bytes <= 2 << 20)
        #expect(log.count == 20)
        #expect(log.total == 100)
        #expect(log.dropped == 80)
        #expect(log.all.map(\.token).first == "t80", "the oldest went first")
        let page = log.page(after: 0, limit: 5) { _ in true }
        #expect(page.items.map(\.sequence) == [81, 82, 83, 84, 85], "sequence numbers still count every delivery")
        #expect(page.more)
    }

    @Test func aLongRunCompactsAndKeepsTheCursorRight() {
        var log = DeliveryLog(capacity: 10, maxBytes: 2 << 20)
        for i in 0..<5000 { log.append(delivery(i, bytes: 10)) }
        #expect(log.count == 10)
        #expect(
            log.page(after: 4995, limit: 100) { _ in true }.items.map(\.delivery.token) == [
                "t4995", "t4996", "t4997", "t4998", "t4999",
            ]
        )
    }

    @Test func aPageStopsAtItsBytesWhateverTheLimit() {
        var log = DeliveryLog(capacity: 1000, maxBytes: 64 << 20)
        for i in 0..<100 { log.append(delivery(i, bytes: 100_000)) }
        let page = log.page(after: 0, limit: 10_000, maxBytes: 350_000) { _ in true }
        #expect(page.items.count == 3)
        #expect(page.more)
        let one = log.page(after: 0, limit: 10, maxBytes: 10) { _ in true }
        #expect(one.items.count == 1, "at least one delivery a page, so paging always moves on")
    }

    @Test func aKeptBodyTakesItsOwnSizeNotTheRequestBuffers() {
        var big = [UInt8](repeating: 0x61, count: 10)
        big.reserveCapacity(1 << 20)
        var log = DeliveryLog(capacity: 10, maxBytes: 2 << 20)
        log.append(GatewayDelivery(provider: .fcm, token: "t", at: clock.now, body: big))
        #expect(log.all.first.map { $0.body.capacity < 4096 } == true)
    }

    @Test func aBodyAlreadyInABufferOfItsSizeIsKeptWithoutACopy() {
        let body = [UInt8](repeating: 0x61, count: 200)
        var log = DeliveryLog(capacity: 10, maxBytes: 2 << 20)
        log.append(GatewayDelivery(provider: .fcm, token: "t", at: clock.now, body: body))
        let kept = log.all.first?.body
        #expect(kept == body)
        let sameStorage = kept?.withUnsafeBufferPointer { k in
            body.withUnsafeBufferPointer { b in k.baseAddress == b.baseAddress }
        }
        #expect(sameStorage == true, "a right-sized body shares its buffer: copying each cost the fan-out")
    }

    @Test func rejectionsAreBoundedInCountAndSize() {
        let gateway = PushGateway(scheduler: clock)
        func reject(_ token: String, reason: String? = nil) -> Int {
            var body: [(String, JSON)] = [("token", .string(token)), ("status", 410)]
            if let reason { body.append(("reason", .string(reason))) }
            return send(
                gateway,
                HTTPRequest(
                    method: "POST",
                    target: "/control/reject",
                    headers: ["Content-Type": "application/json"],
                    body: JSON.object(body).serialized()
                )
            ).status
        }
        #expect(reject(String(repeating: "a", count: PushGateway.maxRejectionTokenBytes)) == 204)
        #expect(reject(String(repeating: "a", count: PushGateway.maxRejectionTokenBytes + 1)) == 422)
        #expect(reject("t", reason: String(repeating: "r", count: PushGateway.maxRejectionReasonBytes + 1)) == 422)
        for i in 1..<PushGateway.maxRejections { #expect(reject("token-\(i)") == 204) }
        #expect(reject("one-too-many") == 422)
        #expect(reject("token-1") == 204, "re-arming a token already there still works")
        let control = send(gateway, HTTPRequest(method: "GET", target: "/control"))
        #expect(control.body.count < 16 << 20)
        #expect(send(gateway, HTTPRequest(method: "DELETE", target: "/control/reject")).status == 204)
        #expect(reject("one-too-many") == 204)
    }
}
