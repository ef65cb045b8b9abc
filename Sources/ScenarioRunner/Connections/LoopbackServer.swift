import Dispatch
import HTTPServer
import ScenarioLanguage

/// The runner's own server for an adapter in another process (`scenarios --adapter CMD` with no
/// `--server`): the in-process MockServer on a manual clock, served on a free loopback port,
/// its pushes through the runner's push-gateway stand-in as with `--server`.
///
/// ```swift
/// let local = try LoopbackServer.start()
/// local.url          // "http://127.0.0.1:41234"
/// local.shutdown()
/// ```
final class LoopbackServer {
    let url: String
    /// The runner's own admin calls, straight into the server (no socket); devices use ``url``.
    let connection: ResponderServerConnection
    private let app: InProcessServer
    private let http: HTTPServer

    private init(app: InProcessServer, http: HTTPServer, port: Int) {
        self.app = app
        self.http = http
        url = "http://127.0.0.1:\(port)"
        connection = ResponderServerConnection(responder: app.server, baseURL: url)
    }

    static func start() throws -> LoopbackServer {
        let app = try InProcessServer(start: Scenario.inProcessStart, pushes: .redirectable)
        let http = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, clock: app.clock),
            responder: app.server,
            log: nil
        )
        do {
            return LoopbackServer(app: app, http: http, port: try http.start())
        } catch {
            app.shutdown()
            throw error
        }
    }

    /// Stops listening (at most 5 s for open connections) and closes the push path.
    func shutdown() {
        let stopped = DispatchSemaphore(value: 0)
        http.stop(graceful: false) { stopped.signal() }
        _ = stopped.wait(timeout: .now() + 5)
        app.shutdown()
    }
}
