import Clock
import Dispatch
import HTTPServer
import MockServer
import POSIX
import ScenarioRunner

/// `lerix-mock serve`: the mock backend on one port (HTTP/1.1 and h2c).
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let summary = "run the mock Lerix backend (HTTP/1.1 and h2c on one port)"
    static let usage = """
        usage: lerix-mock serve [OPTIONS]

        Runs the mock Lerix backend. With no options: 127.0.0.1:8080, one project "demo", no rules,
        state in memory, the system clock. The first line on stdout is `listening on http://HOST:PORT`;
        one line per request goes to stderr unless --quiet.

        options:
          --host HOST            address to listen on (default 127.0.0.1)
          --port N               port (default 8080; 0 picks a free port)
          --config FILE          seed projects, rules and push tokens (JSON or YAML)
          --state FILE           durable state in SQLite (a new file is seeded from --config)
          --clock system|manual  the server's clock (default system); manual moves only via POST /admin/clock;
                                 answers' server_time, Lerix-Server-Time and Date all read it
          --start-time T         the manual clock's start, RFC 3339 (default: now)
          --apns-gateway URL     deliver pushes for ios/macos tokens to this APNs-style gateway (http:// = h2c)
          --fcm-gateway URL      deliver pushes for android tokens to this FCM-style gateway (http:// = h2c)
                                 https:// gateways speak HTTP/2 over TLS (ALPN h2), trusting the system store
          --tls-ca FILE          also trust this CA (PEM) for https:// gateways (e.g. lerix-mock dev-cert's ca.pem)
          --apns-auth-key FILE   APNs token auth: the .p8 key; with --apns-key-id and --apns-team-id
          --apns-key-id ID       the key's 10-character id (the kid of each provider token)
          --apns-team-id ID      your team id (the iss of each provider token)
          --fcm-credentials FILE FCM HTTP v1 auth: a service-account JSON; access tokens come from its token_uri
          --admin-token TOKEN    /admin requires `Authorization: Bearer TOKEN`
          --allow-host NAME      /admin also answers requests whose Host is NAME (repeatable); by default only
                                 IP addresses and localhost, so a web page that rebinds its name cannot reach it
          --tls-cert FILE        also speak TLS on the port (ALPN h2, http/1.1): the certificate chain, PEM,
                                 leaf first (make one with `lerix-mock dev-cert`); plain HTTP/1.1 and h2c still work
          --tls-key FILE         the certificate's private key, PEM (PKCS#8 or traditional)
          --events-max-seconds S end each /admin/events stream after S seconds (EventSource reconnects by itself);
                                 default: streams stay open
          --record FILE          record the session of project demo as a scenario (Scenarios/README.md): admin
                                 changes, device checks and their answers, pushes; written to FILE when it
                                 stops (DELETE /admin/recording, the dashboard's button, or SIGTERM/SIGINT)
          --quiet                no per-request log lines
        """

    static let parser = ArgumentParser(
        valued: [
            "--host", "--port", "--config", "--state", "--clock", "--start-time",
            "--apns-gateway", "--fcm-gateway", "--admin-token", "--tls-cert", "--tls-key",
            "--tls-ca", "--apns-auth-key", "--apns-key-id", "--apns-team-id", "--fcm-credentials",
            "--events-max-seconds", "--record", "--allow-host",
        ],
        flags: ["--quiet"],
        repeatable: ["--allow-host"]
    )

    /// What the flags say, checked before anything starts.
    struct Settings {
        var host = "127.0.0.1"
        var port = 8080
        var configPath: String?
        var statePath: String?
        var manualClock = false
        var startTime: Instant?
        var apnsGateway: String?
        var fcmGateway: String?
        var adminToken: String?
        var tls: TLSFiles?
        var push = ServeWiring.PushAuth()
        var quiet = false
        var eventStreamLifetime: Duration?
        var recordPath: String?
        var allowedHosts: [String] = []

        init(_ arguments: [String]) throws(ArgumentParser.Failure) {
            let parsed = try ServeCommand.parser.parse(arguments)
            if let extra = parsed.positional.first {
                throw ArgumentParser.Failure(description: "unexpected argument '\(extra)'")
            }
            host = parsed.value("--host") ?? host
            if let text = parsed.value("--port") {
                guard let value = Int(text), (0...65_535).contains(value) else {
                    throw ArgumentParser.Failure(description: "--port needs a number from 0 to 65535, not '\(text)'")
                }
                port = value
            }
            switch parsed.value("--clock") ?? "system" {
            case "system": manualClock = false
            case "manual": manualClock = true
            case let other:
                throw ArgumentParser.Failure(description: "--clock is 'system' or 'manual', not '\(other)'")
            }
            if let text = parsed.value("--start-time") {
                guard let instant = Instant(rfc3339: text) else {
                    throw ArgumentParser.Failure(
                        description: "--start-time needs an RFC 3339 time like 2026-12-02T11:00:00.000Z, not '\(text)'"
                    )
                }
                guard manualClock else {
                    throw ArgumentParser.Failure(description: "--start-time only applies with --clock manual")
                }
                startTime = instant
            }
            configPath = parsed.value("--config")
            statePath = parsed.value("--state")
            apnsGateway = parsed.value("--apns-gateway")
            fcmGateway = parsed.value("--fcm-gateway")
            if let token = parsed.value("--admin-token") {
                guard !token.isEmpty else {
                    throw ArgumentParser.Failure(description: "--admin-token must not be empty")
                }
                adminToken = token
            }
            allowedHosts = try parsed.allowedHosts()
            tls = try TLSFiles(parsed)
            push = try ServeWiring.PushAuth(parsed)
            quiet = parsed.flag("--quiet")
            if let path = parsed.value("--record") {
                // Checked now: a session must not be lost to a folder that cannot take the file.
                if let problem = ReportFile.problem(writing: path) {
                    throw ArgumentParser.Failure(description: "--record: \(problem)")
                }
                recordPath = path
            }
            if let text = parsed.value("--events-max-seconds") {
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                    throw ArgumentParser.Failure(
                        description:
                            "--events-max-seconds needs a number of seconds above 0 and at most 86400, not '\(text)'"
                    )
                }
                // To the millisecond, the stream timer's unit.
                eventStreamLifetime = .milliseconds(Int((seconds * 1000).rounded()))
            }
        }
    }

    static func run(_ arguments: [String]) -> Int32 {
        let settings: Settings
        do {
            settings = try Settings(arguments)
        } catch {
            CLI.printError("lerix-mock serve: \(error)\nrun `lerix-mock serve --help` for the options")
            return 2
        }
        do {
            let running = try start(settings)
            // Signals first: a supervisor may send SIGTERM as soon as it reads the listening line.
            stopOnSignals(running.server, then: running.cleanUp)
            CLI.printOut(listeningLine(host: settings.host, port: running.port, tls: settings.tls != nil))
            dispatchMain()
        } catch {
            CLI.printError("lerix-mock serve: \(error)")
            return 1
        }
    }

    struct Running {
        let server: HTTPServer
        let port: Int
        /// After the graceful stop: fold the state file's log in, write the last log lines.
        let cleanUp: @Sendable () -> Void
    }

    static func start(_ settings: Settings) throws -> Running {
        var options = MockServerOptions()
        options.eventStreamLifetime = settings.eventStreamLifetime
        if let path = settings.recordPath {
            options.recordingStopped = { yaml in
                if let problem = ReportFile.write(yaml, to: path) {
                    CLI.printError("lerix-mock serve: --record: \(problem)")
                }
            }
        }
        if let path = settings.configPath {
            options.seed = try ConfigFile.load(path: path)
        }
        let system = SystemScheduler()
        options.clock =
            settings.manualClock
            ? .manual(ManualScheduler(now: settings.startTime ?? system.now))
            : .system(system)
        options.adminToken = settings.adminToken
        // The name it was told to listen on is its own, too.
        options.allowedHosts = settings.allowedHosts + [settings.host]
        // Log lines leave through one background writer: a stderr nobody drains must not stall the event loops.
        let logWriter = RequestLogWriter()
        options.log = { line in logWriter.write(line) }
        let store = try ServeWiring.store(statePath: settings.statePath, seed: options.seed)
        options.store = store.store
        options.seed = store.seed
        // HTTPServer's loops end their batches: a state file's writes commit there, no thread hop.
        options.commitsAtBatchEnd = settings.statePath != nil
        options.pushSink = try ServeWiring.pushSink(
            apns: settings.apnsGateway,
            fcm: settings.fcmGateway,
            auth: settings.push,
            log: options.log
        )
        let app = try MockServer(options: options)
        let log: RequestLogWriter? = settings.quiet ? nil : logWriter
        // Date reads the app's clock: under --clock manual it agrees with Lerix-Server-Time.
        let tls = try settings.tls?.serverContext()
        let server = HTTPServer(
            configuration: .init(host: settings.host, port: settings.port, clock: options.clock.scheduler, tls: tls),
            responder: app,
            log: log
        )
        if settings.recordPath != nil { _ = try app.startRecording(project: StateSnapshot.defaultProjectKey) }
        let port = try server.start()
        return Running(
            server: server,
            port: port,
            cleanUp: {
                if settings.recordPath != nil { _ = app.stopRecording() }
                store.close()
                logWriter.flush()
            }
        )
    }

    /// `listening on http://HOST:PORT`, or with TLS `listening on https://HOST:PORT and http://HOST:PORT`
    /// (one port for both; scripts that look for `http://` still find the port).
    static func listeningLine(host: String, port: Int, tls: Bool) -> String {
        let authority = "\(display(host: host)):\(port)"
        return tls ? "listening on https://\(authority) and http://\(authority)" : "listening on http://\(authority)"
    }

    /// IPv6 literals need brackets in a URL.
    static func display(host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// SIGTERM and SIGINT stop accepting, let in-flight requests finish, run `cleanup`, then exit 0.
    static func stopOnSignals(_ server: HTTPServer, then cleanup: @escaping @Sendable () -> Void = {}) {
        for signalNumber in Posix.stopSignals {
            Posix.ignore(signal: signalNumber)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler {
                server.stop(graceful: true) {
                    cleanup()
                    Posix.exit(0)
                }
            }
            source.resume()
            SignalSources.keep(source)
        }
    }
}

/// Signal sources must outlive `run`; they live for the process.
enum SignalSources {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    static func keep(_ source: DispatchSourceSignal) { sources.append(source) }
}
