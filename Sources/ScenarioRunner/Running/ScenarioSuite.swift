import Foundation
import JSON
import POSIX
import ScenarioLanguage

/// The scenario files found under some paths, parsed, plus the spec catalogue they cite.
/// A file that does not parse becomes a ``ScenarioFileErrors`` with all its mistakes (reported
/// as an error, never a pass), never a crash.
public struct ScenarioSuite: Sendable {
    public var scenarios: [Scenario]
    /// Files that do not parse, each with every mistake found in it, in path order.
    public var brokenFiles: [ScenarioFileErrors]
    /// The catalogue `covers` ids are checked against: the one given or found beside the
    /// scenarios, else the built-in one, so ids are checked wherever the files live.
    public var catalogue: SpecCatalogue
    /// Where the catalogue came from; nil for the built-in one.
    public var catalogueFile: String?
    /// The folders and files the suite was loaded from, for messages.
    public var paths: [String]

    public init(
        scenarios: [Scenario],
        brokenFiles: [ScenarioFileErrors] = [],
        catalogue: SpecCatalogue = .builtIn,
        catalogueFile: String? = nil,
        paths: [String] = []
    ) {
        self.scenarios = scenarios
        self.brokenFiles = brokenFiles
        self.catalogue = catalogue
        self.catalogueFile = catalogueFile
        self.paths = paths
    }

    /// Every mistake of every file, in path order.
    public var errors: [ScenarioError] { brokenFiles.flatMap(\.errors) }

    /// Most bytes a scenario file (or catalogue) may hold: a scenario is a few KiB (fleets are
    /// written with `count`), and a file is read whole, so a larger one is refused unread.
    public static let maximumFileBytes = 16 << 20

    struct ReadProblem: Error {
        var message: String
    }

    /// The bytes of a regular file of at most ``maximumFileBytes``, never more read than that
    /// (a FIFO or device is refused before it is opened: reading it could block for ever).
    static func readFile(_ path: String) -> Result<[UInt8], ReadProblem> {
        let cap = "the \(maximumFileBytes >> 20) MiB a scenario file may hold"
        guard let status = Posix.status(of: path) else { return .failure(ReadProblem(message: "no such file")) }
        guard status.kind == .regular else { return .failure(ReadProblem(message: "not a regular file")) }
        if status.size > maximumFileBytes {
            return .failure(ReadProblem(message: "\(status.size) bytes, larger than \(cap)"))
        }
        do {
            // Bounded even if the file grew (or was replaced) since it was looked at.
            return .success(try Posix.readFile(path, limit: maximumFileBytes))
        } catch  where error.errno == SystemCallError.fileTooLarge {
            return .failure(ReadProblem(message: "larger than \(cap)"))
        } catch  where error.isNotRegularFile {
            return .failure(ReadProblem(message: "not a regular file"))
        } catch  where error.call == "open" {
            return .failure(ReadProblem(message: "cannot open it"))
        } catch {
            return .failure(ReadProblem(message: "cannot read it: \(error.reason)"))
        }
    }

    /// Files are taken in sorted path order, so runs are reproducible. A folder contributes
    /// its `*.yaml`, `*.yml` and `*.json` files (recursively). A file named `spec-catalogue.yaml`
    /// is a catalogue, never a scenario (so `Scenarios/*.yaml` runs only scenarios): the first
    /// one given or found in a folder is used unless `catalogue` names another.
    public static func load(paths: [String], catalogue: String? = nil) throws(ScenarioError) -> ScenarioSuite {
        var files: [String] = []
        var catalogueFile = catalogue
        let fm = FileManager.default
        func isCatalogue(_ path: String) -> Bool {
            path == SpecCatalogue.fileName || path.hasSuffix("/" + SpecCatalogue.fileName)
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScenarioError(
                    "no such file or folder",
                    at: SourceLocation(file: path, mark: .init(line: 0, column: 0))
                )
            }
            if isDirectory.boolValue {
                let base = path.hasSuffix("/") ? String(path.dropLast()) : path
                // A linked folder is read through its link (the enumerator does not follow one).
                let real = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
                let found = (fm.enumerator(atPath: real)?.allObjects as? [String] ?? [])
                    .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") || $0.hasSuffix(".json") }
                    .sorted()
                    .map { base + "/" + $0 }
                if catalogueFile == nil, let own = found.first(where: { $0 == base + "/" + SpecCatalogue.fileName }) {
                    catalogueFile = own
                }
                files += found.filter { !isCatalogue($0) }
            } else if isCatalogue(path) {
                if catalogueFile == nil { catalogueFile = path }
            } else {
                files.append(path)
            }
        }
        var suite = ScenarioSuite(
            scenarios: [],
            brokenFiles: [],
            catalogue: .builtIn,
            catalogueFile: catalogueFile,
            paths: paths
        )
        if let catalogueFile {
            let bytes: [UInt8]
            switch readFile(catalogueFile) {
            case .success(let read): bytes = read
            case .failure(let problem):
                throw ScenarioError(
                    "cannot read the spec catalogue: \(problem.message)",
                    at: SourceLocation(file: catalogueFile, mark: .init(line: 0, column: 0))
                )
            }
            suite.catalogue = try SpecCatalogue.parse(
                bytes,
                file: DisplayPath.relative(catalogueFile, from: fm.currentDirectoryPath)
            )
        }
        var names: [String: String] = [:]
        let startFolder = fm.currentDirectoryPath
        for path in files {
            let file = DisplayPath.relative(path, from: startFolder)
            let bytes: [UInt8]
            switch readFile(path) {
            case .success(let read): bytes = read
            case .failure(let problem):
                suite.brokenFiles.append(
                    ScenarioFileErrors([
                        ScenarioError(
                            "cannot read the file: \(problem.message)",
                            at: SourceLocation(file: file, mark: .init(line: 0, column: 0))
                        )
                    ])
                )
                continue
            }
            do {
                let scenario = try Scenario.parse(bytes, file: file, catalogue: suite.catalogue)
                if let other = names[scenario.name] {
                    suite.brokenFiles.append(
                        ScenarioFileErrors([
                            ScenarioError(
                                "scenario name '\(scenario.name)' is also used by \(other)",
                                at: SourceLocation(file: file, mark: .init(line: 1, column: 1))
                            )
                        ])
                    )
                    continue
                }
                names[scenario.name] = file
                suite.scenarios.append(scenario)
            } catch {
                suite.brokenFiles.append(error)
            }
        }
        return suite
    }

    /// The scenarios `--filter` (text in the name or file, any case) and `--tag` (any of them) pick.
    public func selected(filter: String?, tags: [String]) -> [Scenario] {
        scenarios.filter { s in
            if let f = filter?.lowercased(), !s.name.lowercased().contains(f), !s.file.lowercased().contains(f) {
                return false
            }
            if !tags.isEmpty, !tags.contains(where: s.tags.contains) { return false }
            return true
        }
    }

    /// Why the selection is not what was asked, or nil: nothing selected, or a `--tag` that no
    /// scenario has (with several tags, a typo in one would quietly run fewer). A typo in CI
    /// must not run nothing and go green, so the caller stops with this message.
    public func selectionProblem(filter: String?, tags: [String]) -> String? {
        let known = Set(scenarios.flatMap(\.tags))
        let unknownTags = tags.filter { !known.contains($0) }
        guard selected(filter: filter, tags: tags).isEmpty || !unknownTags.isEmpty else { return nil }
        let place = paths.joined(separator: " ")
        guard !scenarios.isEmpty else {
            return brokenFiles.isEmpty ? "no scenario files in \(place)" : "no scenario in \(place) parses"
        }
        var reasons: [String] = []
        if let filter, selected(filter: filter, tags: []).isEmpty {
            let hint =
                KeySuggestion.nearest(to: filter, in: scenarios.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
            reasons.append("no scenario name or file contains '\(filter)'\(hint)")
        }
        for tag in unknownTags {
            let hint = KeySuggestion.nearest(to: tag, in: Array(known)).map { " (did you mean '\($0)'?)" } ?? ""
            reasons.append("no scenario is tagged '\(tag)'\(hint)")
        }
        if reasons.isEmpty {
            reasons.append(
                "no scenario matches both --filter '\(filter ?? "")' and --tag \(tags.joined(separator: ", "))"
            )
        }
        let tagList = known.isEmpty ? "no scenario has tags" : "tags in use: \(known.sorted().joined(separator: ", "))"
        return "no scenarios matched: " + reasons.joined(separator: "; ")
            + " (\(scenarios.count) scenarios in \(place); \(tagList))"
    }
}
