import Adapter
import LerixSDK
import Synchronization
import Testing

@testable import ScenarioRunner

/// An HTTP client as OkHttp's defaults make it (`retryOnConnectionFailure`): a GET that got no
/// response at all (reset, refused) is sent once more at once; a status or a bad body is not.
final class RetriesAResetGETOnce: AdapterNetwork, @unchecked Sendable {
    let inner: any AdapterNetwork
    let retries = Mutex(0)

    init(_ inner: any AdapterNetwork) { self.inner = inner }

    func send(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        inner.send(request) { [self] result in
            guard case .failure = result, request.method == "GET" else { return completion(result) }
            retries.withLock { $0 += 1 }
            inner.send(request, completion: completion)
        }
    }

    func runUntilIdle() { inner.runUntilIdle() }
    func startSending() { inner.startSending() }
}

/// docs/behaviour.md "Retries": the two scenarios that arm resets agree, so an SDK whose client
/// retries a reset GET once passes them, as one that never retries does.
@Suite struct RetryPolicyTests {
    static let files = ["failed-checks-are-reported.yaml", "bad-answer-ignored-part-by-part.yaml"]

    static func run(client: InProcessEnvironment.Client?) throws -> SuiteResult {
        let suite = try ScenarioSuite.load(paths: files.map { BundledSuiteTests.scenariosFolder + "/" + $0 })
        #expect(suite.scenarios.count == 2)
        return SuiteRunner(options: SuiteOptions()).run(suite, in: InProcessEnvironment(client: client))
    }

    @Test func aClientThatRetriesAResetGETOncePassesBothScenarios() throws {
        let clients = Mutex<[RetriesAResetGETOnce]>([])
        let result = try Self.run { network in
            let client = RetriesAResetGETOnce(network)
            clients.withLock { $0.append(client) }
            return client
        }
        #expect(result.passed == 2, "\(BundledSuiteTests.report(result))")
        let retried = clients.withLock { $0.reduce(0) { $0 + $1.retries.withLock { $0 } } }
        #expect(retried >= 2, "the resets were retried: the scenarios saw a retrying client")
    }

    @Test func aClientThatNeverRetriesPassesBothScenarios() throws {
        let result = try Self.run(client: nil)
        #expect(result.passed == 2, "\(BundledSuiteTests.report(result))")
    }
}
