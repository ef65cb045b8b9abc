import AdapterProtocol
import AdminClient
import Clock
import JSON
import Testing

@testable import ScenarioRunner

/// In process the runner hands the Swift host typed commands (no JSON per device): what comes
/// back must be what the same command sent as its JSON line gets.
@Suite struct InProcessAdapterTests {
    let start = Instant(rfc3339: "2026-12-02T09:00:00.000Z")!

    var phone: AdapterRequest {
        .create(
            device: "phone",
            now: start,
            config: DeviceConfig(baseURL: "http://lerix.test", project: "demo", platform: "ios", appVersion: "2.3.0")
        )
    }

    /// The JSON path of the same connection: the request's line, `ok` checked as the runner does.
    func viaLine(_ adapter: any AdapterConnection, _ request: AdapterRequest) throws -> JSON {
        let answer = try adapter.send(request.json(id: 0))
        guard answer["ok"]?.boolValue == true else {
            throw AdapterFailure(answer["error"]?.stringValue ?? answer.serializedString)
        }
        return answer
    }

    func withoutId(_ answer: JSON) -> JSON {
        guard case .object(var object) = answer else { return answer }
        object["id"] = nil
        return .object(object)
    }

    @Test func typedCommandsAnswerAsTheirJSONLinesDo() throws {
        let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server = try InProcessServer(start: start, pushes: .direct(gateway.gateway))
        let typed = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        let lines = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        _ = try typed.command(phone)
        _ = try viaLine(lines, phone)
        _ = try typed.command(.appEvent(.launch, device: "phone"))
        _ = try viaLine(lines, .appEvent(.launch, device: "phone"))

        let state = try typed.command(.state(device: "phone"))
        #expect(state["checks"] == 1)
        #expect(state["screen"] == "none")
        #expect(withoutId(state) == withoutId(try viaLine(lines, .state(device: "phone"))))
        #expect(withoutId(try typed.command(.nextDeadline)) == withoutId(try viaLine(lines, .nextDeadline)))
    }

    /// A run's `checks` come from the in-process server's own count: the number its journal
    /// lists, got without listing it (the listing of a fleet's checks cost more than the checks).
    @Test func theInProcessServerCountsItsChecksAsItsJournalListsThem() throws {
        let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server = try InProcessServer(start: start, pushes: .direct(gateway.gateway))
        let adapter = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        _ = try adapter.command(phone)
        for _ in 0..<3 { _ = try adapter.command(.appEvent(.launch, device: "phone")) }
        let listed = try server.connection.admin(Admin.journal(project: "demo", limit: 1000))
        #expect(listed.count == 3)
        #expect(server.connection.checksAnswered(project: "demo") == 3)
        #expect(server.connection.checksAnswered(project: "other") == 0)
    }

    @Test func aTypedRefusalSaysWhatTheLineSays() throws {
        let gateway = PushGatewayStandIn.inMemory(scheduler: SystemScheduler())
        let server = try InProcessServer(start: start, pushes: .direct(gateway.gateway))
        let adapter = try InProcessAdapter.make(responder: server.server, clock: server.clock)
        let line = try adapter.send(AdapterRequest.state(device: "nobody").json(id: 0))
        #expect(line["ok"] == false)
        let reason = try #require(line["error"]?.stringValue)
        let failure = #expect(throws: AdapterFailure.self) { try adapter.command(.state(device: "nobody")) }
        #expect(failure?.message == "adapter refused `state`: \(reason)")
    }
}
