import Foundation
import TestSupport
import Testing

/// Package.swift says what the sources say: each target declares exactly the package targets its
/// files import, no more (a dependency nobody imports) and no fewer (an import that compiles only
/// because another target happened to build the module first). SwiftPM's
/// `--explicit-target-dependency-import-check` catches only the second kind, and skips every
/// target that has embedded resources or depends on one (MockServer and all above it).
@Suite struct PackageGraphTests {
    struct Target {
        var name: String
        var dependencies: [String]
        var folder: String
    }

    /// The targets of Package.swift with their declared dependencies and source folders. Reads the
    /// manifest as text: every `.target(`, `.testTarget(`, `.executableTarget(` and
    /// `.systemLibrary(` call, its `name:`, its `dependencies: [...]` (plain strings) and `path:`.
    static func targets() throws -> [Target] {
        let manifest = try String(contentsOfFile: TestFiles.packageRoot + "/Package.swift", encoding: .utf8)
        var found: [Target] = []
        let kinds = [".target(", ".testTarget(", ".executableTarget(", ".systemLibrary("]
        var rest = Substring(manifest)
        while let start = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            let isTest = rest[start].hasPrefix(".testTarget(")
            let call = callText(rest[start.upperBound...])
            rest = rest[start.upperBound...]
            guard let name = stringValue(after: "name:", in: call) else { continue }
            var dependencies: [String] = []
            if let list = call.range(of: "dependencies: [") {
                let body = call[list.upperBound...].prefix { $0 != "]" }
                dependencies = body.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter {
                    $0.offset % 2 == 1
                }.map {
                    String($0.element)
                }
            }
            let folder = stringValue(after: "path:", in: call) ?? ((isTest ? "Tests/" : "Sources/") + name)
            found.append(Target(name: name, dependencies: dependencies, folder: folder))
        }
        return found
    }

    /// The text of one call up to its closing parenthesis.
    static func callText(_ text: Substring) -> Substring {
        var depth = 1
        for index in text.indices {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return text[..<index] }
            default: break
            }
        }
        return text
    }

    static func stringValue(after label: String, in call: Substring) -> String? {
        guard let at = call.range(of: label) else { return nil }
        let parts = call[at.upperBound...].split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count > 2 ? String(parts[1]) : nil
    }

    /// Every Swift file under `folder` (relative to the package root), paths relative to it too.
    static func swiftFiles(under folder: String) -> [String] {
        let root = TestFiles.packageRoot + "/"
        guard let walker = FileManager.default.enumerator(atPath: root + folder) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            folder + "/" + $0
        }
    }

    /// The modules a Swift file imports (`import X`, `@testable import X`, `import struct X.Y`, …).
    static func imports(ofFile path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: TestFiles.packageRoot + "/" + path, encoding: .utf8)
        var modules: Set<String> = []
        for line in text.split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let kinds = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
            let name = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            modules.insert(String(name.prefix { $0 != "." }))
        }
        return modules
    }

    @Test func everyTargetDeclaresExactlyThePackageTargetsItImports() throws {
        let targets = try Self.targets()
        let names = Set(targets.map(\.name))
        #expect(names.contains("MockServer") && names.contains("IntegrationTests"), "Package.swift not understood")
        var problems: [String] = []
        for target in targets where target.folder.hasPrefix("Sources/") || target.folder.hasPrefix("Tests/") {
            let files = Self.swiftFiles(under: target.folder)
            if files.isEmpty { continue }  // a system library: a module map, no Swift
            var imported: Set<String> = []
            for file in files { imported.formUnion(try Self.imports(ofFile: file)) }
            imported = imported.intersection(names).subtracting([target.name])
            let declared = Set(target.dependencies)
            for missing in imported.subtracting(declared).sorted() {
                problems.append("\(target.name) imports \(missing) without declaring it")
            }
            for unused in declared.subtracting(imported).sorted() {
                problems.append("\(target.name) declares \(unused) and never imports it")
            }
        }
        #expect(problems.isEmpty, "Package.swift and the imports disagree:\n\(problems.joined(separator: "\n"))")
    }

    /// Fuzz/run.sh builds each fuzz target's modules by hand with swiftc, in the order its list
    /// gives: every module's package dependencies must come earlier in that list, or the fuzz build
    /// breaks the day a target gains one (as Clock did when it came to depend on POSIX).
    @Test func everyFuzzBuildListsEachModuleAfterItsDependencies() throws {
        let targets = try Self.targets()
        let dependencies = Dictionary(
            targets.map { ($0.name, $0.dependencies) },
            uniquingKeysWith: { first, _ in first }
        )
        let script = try String(contentsOfFile: TestFiles.packageRoot + "/Fuzz/run.sh", encoding: .utf8)
        var lists = 0
        var problems: [String] = []
        for line in script.split(separator: "\n") {
            // An entry is one quoted "name|modules|libraries", alone or in `TARGETS+=(…)`.
            guard let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close else {
                continue
            }
            let fields = line[line.index(after: open)..<close].split(separator: "|", omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty,
                fields[0].allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" })
            else { continue }
            let modules = fields[1].split(separator: " ").map(String.init)
            lists += 1
            for (position, module) in modules.enumerated() {
                guard let needs = dependencies[module] else {
                    problems.append("\(fields[0]): \(module) is no target of Package.swift")
                    continue
                }
                // System libraries (a module map, no Swift) are not built by the script.
                let swiftDependencies = needs.filter { !Self.swiftFiles(under: "Sources/" + $0).isEmpty }
                for dependency in swiftDependencies where !modules[..<position].contains(dependency) {
                    problems.append("\(fields[0]): \(module) needs \(dependency) built before it")
                }
            }
        }
        #expect(lists >= 9, "Fuzz/run.sh's target lists not found (\(lists))")
        #expect(problems.isEmpty, "Fuzz/run.sh's module lists:\n\(problems.joined(separator: "\n"))")
    }

    /// The targets allowed to make system calls: POSIX (files, pipes, poll, processes), Sockets
    /// on it, and LerixSDK, a product of its own that keeps its few file calls.
    static let systemCallTargets: Set<String> = ["POSIX", "Sockets", "LerixSDK"]

    /// What a Swift line outside them may not hold: an import of the C library, or a call to one
    /// of its primitives or constants (the ones this codebase wraps in ``Posix``).
    static func systemCall() throws -> Regex<AnyRegexOutput> {
        try Regex(
            #"^\s*import\s+(Glibc|Darwin)\b|\bGlibc\.|(^|[^\w."])errno\b(?!\s*:)|"#
                + #"(^|[^\w."])(strerror|fcntl|pipe|posix_spawn\w*|waitpid|"#
                + #"fsync|fdatasync|unlink|usleep|nanosleep|kill|mkdir|getpid|gethostname|access|clock_gettime|"#
                + #"sysconf|signal|memcmp|setsockopt|getsockopt|epoll_\w+|sendmsg|accept4)\s*\(|"#
                + #"\b(EINTR|EAGAIN|EWOULDBLOCK|O_RDONLY|O_WRONLY|O_CREAT|SIG_IGN|SIGKILL|pollfd|POLLIN|POLLOUT)\b"#
        )
    }

    @Test func onlyThePOSIXLayerMakesSystemCalls() throws {
        let targets = try Self.targets().filter { $0.folder.hasPrefix("Sources/") }
        let systemCall = try Self.systemCall()
        #expect(targets.contains { $0.name == "POSIX" }, "Package.swift not understood")
        var offences: [String] = []
        for target in targets where !Self.systemCallTargets.contains(target.name) {
            for file in Self.swiftFiles(under: target.folder) {
                let text = try String(contentsOfFile: TestFiles.packageRoot + "/" + file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                    if code.contains(systemCall) { offences.append("\(file):\(number + 1): \(line)") }
                }
            }
        }
        #expect(
            offences.isEmpty,
            "system calls belong in Sources/POSIX (or Sockets), wrapped once:\n\(offences.joined(separator: "\n"))"
        )
    }

    /// The rule above finds what it is meant to: a bare `read` loop, an import, a constant.
    @Test func theSystemCallRuleCatchesEachKind() throws {
        let systemCall = try Self.systemCall()
        for line in [
            "import Glibc", "  if errno == EINTR { continue }", "let fd = open(path, O_RDONLY)", "kill(-pid, SIGKILL)",
        ] {
            #expect(line.contains(systemCall), "not caught: \(line)")
        }
        for line in [
            "Posix.close(fd)", "try Posix.read(fd, into: buffer)", "server.signal(done)",
            "let error = \"epoll_ctl(ADD)\"", "SocketError(call: \"x\", errno: 9)",
        ] {
            #expect(!line.contains(systemCall), "caught wrongly: \(line)")
        }
    }
}
