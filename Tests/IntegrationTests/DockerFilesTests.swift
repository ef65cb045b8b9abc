import Foundation
import JSON
import TestSupport
import Testing
import YAML

/// docker/compose.yaml, docker/Dockerfile and .dockerignore checked against each other and
/// against the binary, without Docker (CI has no engine; hadolint lints the Dockerfile in
/// `make test`): every health check asks its own service's port, the image is built once,
/// the context leaves local build output out, and the image can run the bundled scenarios.
@Suite struct DockerFilesTests {
    static var root: String { TestFiles.packageRoot }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: root + "/" + path, encoding: .utf8) }

    static func compose() throws -> JSON {
        try YAML.parse(Array(text("docker/compose.yaml").utf8)).json
    }

    /// The value after `flag` in a service's `command` list.
    static func argument(_ flag: String, of service: JSON) -> String? {
        let command = service["command"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard let i = command.firstIndex(of: flag), i + 1 < command.count else { return nil }
        return command[i + 1]
    }

    /// Dockerfile instructions, continuation lines joined, comments dropped.
    static func instructions() throws -> [(keyword: String, rest: String)] {
        var out: [(String, String)] = []
        var pending = ""
        for raw in try text("docker/Dockerfile").split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (line.hasPrefix("#") || line.isEmpty) { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let whole = pending + line
            pending = ""
            let parts = whole.split(separator: " ", maxSplits: 1)
            out.append((String(parts[0]).uppercased(), parts.count > 1 ? String(parts[1]) : ""))
        }
        return out
    }

    @Test func everyHealthCheckAsksItsOwnServicesPort() throws {
        let services = try #require(try Self.compose()["services"]?.objectValue)
        #expect(services.count == 2)
        for (name, service) in services {
            let port = try #require(Self.argument("--port", of: service), "\(name) has no --port")
            let test = service["healthcheck"]?["test"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(test.contains("http://127.0.0.1:\(port)/healthz"), "\(name) listens on \(port) but checks \(test)")
            #expect(
                service["ports"]?.arrayValue?.compactMap(\.stringValue).contains("\(port):\(port)") == true,
                "\(name) does not publish \(port)"
            )
        }
    }

    @Test func theImageIsBuiltOnceAndRunTwice() throws {
        let services = try #require(try Self.compose()["services"]?.objectValue)
        let builders = services.pairs.filter { $0.value["build"] != nil }
        #expect(builders.count == 1, "compose builds the image \(builders.count) times")
        let image = try #require(
            builders.first?.value["image"]?.stringValue,
            "the built image needs a name the other service can run"
        )
        for (name, service) in services {
            #expect(service["image"]?.stringValue == image, "\(name) runs another image")
        }
        #expect(builders.first?.value["build"]?["dockerfile"]?.stringValue == "docker/Dockerfile")
        #expect(builders.first?.value["build"]?["context"]?.stringValue == "..")
    }

    @Test func theServerWaitsForAHealthyGatewayAndSendsPushesToIt() throws {
        let services = try #require(try Self.compose()["services"]?.objectValue)
        let server = try #require(services["lerix-mock"])
        let gateway = try #require(services["push-gateway"])
        #expect(server["depends_on"]?["push-gateway"]?["condition"]?.stringValue == "service_healthy")
        let gatewayPort = try #require(Self.argument("--port", of: gateway))
        for flag in ["--apns-gateway", "--fcm-gateway"] {
            #expect(Self.argument(flag, of: server) == "http://push-gateway:\(gatewayPort)", "\(flag)")
        }
        // The state file lives in the volume mounted for it.
        let state = try #require(Self.argument("--state", of: server))
        let mounts = server["volumes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(
            mounts.contains { mount in
                mount.split(separator: ":").last.map { state.hasPrefix(String($0) + "/") } == true
            },
            "\(state) is outside \(mounts)"
        )
    }

    @Test func theImagesOwnHealthCheckMatchesItsDefaultCommand() throws {
        let steps = try Self.instructions()
        let final = steps.suffix(from: try #require(steps.lastIndex { $0.keyword == "FROM" }))
        let health = try #require(final.first { $0.keyword == "HEALTHCHECK" }?.rest)
        let command = try #require(final.first { $0.keyword == "CMD" }?.rest)
        let port = try #require(
            command.range(of: #""--port", ""#).map { command[$0.upperBound...].prefix { $0.isNumber } }
        )
        #expect(health.contains("http://127.0.0.1:\(port)/healthz"), "\(health)")
        #expect(final.contains { $0.keyword == "EXPOSE" && $0.rest == String(port) })
    }

    @Test func theImageCarriesTheScenariosWhereScenariosLooksForThem() throws {
        let steps = try Self.instructions()
        let final = Array(steps.suffix(from: try #require(steps.lastIndex { $0.keyword == "FROM" })))
        let workdir = try #require(final.last { $0.keyword == "WORKDIR" }?.rest)
        #expect(
            final.contains { $0.keyword == "COPY" && $0.rest == "Scenarios ./Scenarios" },
            "the runtime image has no Scenarios/"
        )
        #expect(!workdir.hasPrefix("/var/lib/lerix"), "the compose volume would hide Scenarios/ under \(workdir)")
        // The build stage copies what the build reads: the catalogue link leads into Scenarios/.
        let copied = steps.filter { $0.keyword == "COPY" && !$0.rest.hasPrefix("--from") }.compactMap {
            $0.rest.split(separator: " ").first.map(String.init)
        }
        for path in copied {
            #expect(FileManager.default.fileExists(atPath: Self.root + "/" + path), "COPY \(path): no such path")
        }
        let link = try FileManager.default.destinationOfSymbolicLink(
            atPath: Self.root + "/Sources/ScenarioRunner/Catalogue/spec-catalogue.yaml"
        )
        #expect(link.hasSuffix("Scenarios/spec-catalogue.yaml"))
        #expect(copied.contains("Scenarios") && copied.contains("Sources") && copied.contains("Package.swift"))
    }

    /// `docker run … scenarios` is `lerix-mock scenarios` in the image's working folder.
    @Test func scenariosWithoutAPathRunTheScenariosFolderOfTheWorkingFolder() throws {
        let workdir = try TestFiles.folder()
        defer { try? FileManager.default.removeItem(atPath: workdir) }
        try FileManager.default.createSymbolicLink(
            atPath: workdir + "/Scenarios",
            withDestinationPath: Self.root + "/Scenarios"
        )
        let run = try ServerProcess.run(["scenarios", "--filter", "refresh-fetches-now"], in: workdir)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("1 passed, 0 failed, 0 skipped"), "\(run.stdout)")
    }

    @Test func theBuildContextLeavesLocalBuildOutputOut() throws {
        let ignored = try Self.text(".dockerignore").split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        for needed in [".build/", ".git/", ".swiftpm/"] {
            #expect(ignored.contains(needed), "\(needed) is sent to the daemon")
        }
        let copied = try Self.instructions().filter { $0.keyword == "COPY" && !$0.rest.hasPrefix("--from") }
            .compactMap { $0.rest.split(separator: " ").first.map(String.init) }
        for path in copied {
            #expect(
                !ignored.contains { $0 == path || $0 == path + "/" },
                "COPY \(path) but .dockerignore leaves it out"
            )
        }
    }

    @Test func theComposeCommandsStartAndAnswerTheirHealthChecks() throws {
        // Each service's command as compose runs it, on a loopback port of its own.
        let services = try #require(try Self.compose()["services"]?.objectValue)
        let service = try #require(services["push-gateway"])
        let command = service["command"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let port = Self.argument("--port", of: service)
        let args = command.map { $0 == "0.0.0.0" ? "127.0.0.1" : $0 == port ? "0" : $0 }
        #expect(args.first == "push-gateway")
        let process = try ServerProcess.start(args)
        defer { process.stop() }
        let client = try TestHTTPClient(port: process.port)
        #expect(try client.send(.init(method: "GET", target: "/healthz")).status == 200)
    }
}
