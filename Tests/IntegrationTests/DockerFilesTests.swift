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

    /// The Debian packages each stage's `apt-get install` lines name, stage by stage.
    static func installedPackages() throws -> [[String]] {
        var stages: [[String]] = []
        for step in try instructions() {
            if step.keyword == "FROM" { stages.append([]) }
            guard step.keyword == "RUN", !stages.isEmpty else { continue }
            for install in step.rest.components(separatedBy: "apt-get install").dropFirst() {
                let words = install.prefix { !"&;|".contains($0) }.split(separator: " ")
                stages[stages.count - 1] += words.filter { !$0.hasPrefix("-") }.map(String.init)
            }
        }
        return stages
    }

    /// The `libX` each system-library target links (`link "X"` in its module map).
    static func linkedLibraries() throws -> [String] {
        let sources = root + "/Sources"
        return try FileManager.default.contentsOfDirectory(atPath: sources).sorted().flatMap { target in
            let map = (try? text("Sources/\(target)/module.modulemap")) ?? ""
            return map.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: "\"")
                return line.trimmingCharacters(in: .whitespaces).hasPrefix("link ") && words.count > 1
                    ? String(words[1]) : nil
            }
        }
    }

    /// A host tool's stdout; nil when it cannot start or (unless `anyStatus`) fails.
    static func output(_ tool: String, _ arguments: [String], anyStatus: Bool = false) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 || anyStatus ? String(decoding: data, as: UTF8.self) : nil
    }

    /// Every -dev package a target of Package.swift names (its `.apt([...])` provider) and every
    /// one `make` installs (BUILD_DEPS) is installed in the build stage: the Swift image has
    /// only some of them (it lacked libssl-dev, and the build stage once did too).
    @Test func theBuildStageInstallsEveryPackageTheTargetsBuildWith() throws {
        let build = try #require(try Self.installedPackages().first)
        var needed = Set<String>()
        for provider in try Self.text("Package.swift").components(separatedBy: ".apt([").dropFirst() {
            needed.formUnion(
                provider.prefix { $0 != "]" }.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            )
        }
        #expect(needed.contains("libssl-dev"), "read no providers from Package.swift: \(needed)")
        let makefile = try Self.text("Makefile").split(separator: "\n")
        let deps = try #require(makefile.first { $0.hasPrefix("BUILD_DEPS") })
        needed.formUnion(deps.split(separator: "=").last?.split(separator: " ").map(String.init) ?? [])
        for package in needed.sorted() {
            #expect(build.contains(package), "the build stage of docker/Dockerfile does not install \(package)")
        }
    }

    /// The runtime stage names the package of every C library a target links, found the way the
    /// linker finds it here (Debian 12, as the image): a library that arrives only as another
    /// package's dependency (libssl3 once came by way of curl) is one change away from missing.
    /// `make docker-test` checks the built binary's own libraries with `ldd` in the image.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-query")))
    func theRuntimeStageNamesThePackageOfEveryLibraryTheTargetsLink() throws {
        let runtime = try #require(try Self.installedPackages().last)
        let libraries = try Self.linkedLibraries()
        #expect(libraries.contains("ssl") && libraries.contains("nghttp2"), "\(libraries)")
        // The linker's search folders on Debian: the multiarch one(s), then /usr/lib.
        let multiarch = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        let folders = multiarch.filter { $0.hasSuffix("-linux-gnu") }.map { "/usr/lib/" + $0 } + ["/usr/lib"]
        // libssl.so is the -dev package's link to the runtime file (libssl.so.3).
        let files = try libraries.map { library in
            let path = try #require(
                folders.map { "\($0)/lib\(library).so" }.first { FileManager.default.fileExists(atPath: $0) },
                "lib\(library).so is in none of \(folders)"
            )
            return (library, URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        }
        // Debian 12 lists merged-/usr files under either path; one dpkg-query for all of them
        // (it exits 1 for the paths it does not know and still prints the others).
        let candidates = files.flatMap { [$0.1, "/usr" + $0.1, String($0.1.dropFirst("/usr".count))] }
        var owners: [String: String] = [:]
        for line in Self.output("/usr/bin/dpkg-query", ["-S"] + candidates, anyStatus: true)?.split(separator: "\n")
            ?? []
        {
            guard let colon = line.range(of: ": ") else { continue }
            owners[String(line[colon.upperBound...])] = line[..<colon.lowerBound].split(separator: ":").first.map(
                String.init
            )
        }
        for (library, file) in files {
            let package = try #require(
                [file, "/usr" + file, String(file.dropFirst("/usr".count))].lazy.compactMap { owners[$0] }.first,
                "no package owns \(file)"
            )
            #expect(
                runtime.contains(package),
                "the runtime stage does not name \(package) (\(file), for link \"\(library)\")"
            )
        }
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
            atPath: Self.root + "/Sources/ScenarioLanguage/Catalogue/spec-catalogue.yaml"
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

    /// A symbolic link under Sources/ (a compiled-in catalogue, schema or other resource) leads
    /// out of Sources/: the build stage must copy what it leads to, or `swift build` in the image
    /// finds a broken link (the results schema under docs/ once was one).
    @Test func theBuildStageCopiesWhatEverySourceLinkLeadsTo() throws {
        let copied = try Self.instructions().filter { $0.keyword == "COPY" && !$0.rest.hasPrefix("--from") }
            .compactMap { $0.rest.split(separator: " ").first.map(String.init) }
        let root = URL(fileURLWithPath: Self.root).standardizedFileURL.path
        let files = FileManager.default.enumerator(atPath: Self.root + "/Sources")
        var links = 0
        while let path = files?.nextObject() as? String {
            let link = Self.root + "/Sources/" + path
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { continue }
            links += 1
            let folder = (link as NSString).deletingLastPathComponent
            let target = URL(fileURLWithPath: folder + "/" + destination).standardizedFileURL.path
            #expect(target.hasPrefix(root + "/"), "Sources/\(path) leads out of the repository: \(destination)")
            let inside = String(target.dropFirst(root.count + 1))
            #expect(
                copied.contains { inside == $0 || inside.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") },
                "Sources/\(path) leads to \(inside), which docker/Dockerfile does not copy (it copies \(copied))"
            )
        }
        #expect(links >= 2, "found \(links) links under Sources/")
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
