import Foundation

/// The scenario files found under some paths, parsed, plus the spec catalogue they cite.
/// A file that does not parse becomes an error (reported as a failed scenario), never a crash.
public struct ScenarioSuite: Sendable {
    public var scenarios: [Scenario]
    public var errors: [ScenarioError]
    public var catalogue: SpecCatalogue?
    public var catalogueFile: String?

    public static let catalogueName = "spec-catalogue.yaml"

    /// Files are taken in sorted path order, so runs are reproducible. A folder contributes
    /// its `*.yaml`, `*.yml` and `*.json` files (recursively), except the catalogue.
    /// The catalogue is `catalogue` when given, else `spec-catalogue.yaml` in the first folder.
    public static func load(paths: [String], catalogue: String? = nil) throws(ScenarioError) -> ScenarioSuite {
        var files: [String] = []
        var catalogueFile = catalogue
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScenarioError("no such file or folder", at: SourceLocation(file: path, mark: .init(line: 0, column: 0)))
            }
            if isDirectory.boolValue {
                let base = path.hasSuffix("/") ? String(path.dropLast()) : path
                if catalogueFile == nil, fm.fileExists(atPath: base + "/" + catalogueName) { catalogueFile = base + "/" + catalogueName }
                let found = (fm.enumerator(atPath: base)?.allObjects as? [String] ?? [])
                    .filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml") || $0.hasSuffix(".json")) && !$0.hasSuffix(catalogueName) }
                    .sorted()
                files += found.map { base + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        var suite = ScenarioSuite(scenarios: [], errors: [], catalogue: nil, catalogueFile: catalogueFile)
        if let catalogueFile {
            guard let bytes = fm.contents(atPath: catalogueFile) else {
                throw ScenarioError("cannot read the spec catalogue", at: SourceLocation(file: catalogueFile, mark: .init(line: 0, column: 0)))
            }
            suite.catalogue = try SpecCatalogue.parse(Array(bytes), file: catalogueFile)
        }
        var names: [String: String] = [:]
        for file in files {
            guard let bytes = fm.contents(atPath: file) else {
                suite.errors.append(ScenarioError("cannot read the file", at: SourceLocation(file: file, mark: .init(line: 0, column: 0))))
                continue
            }
            do {
                let scenario = try Scenario.parse(Array(bytes), file: file, catalogue: suite.catalogue)
                if let other = names[scenario.name] {
                    suite.errors.append(ScenarioError("scenario name '\(scenario.name)' is also used by \(other)",
                                                      at: SourceLocation(file: file, mark: .init(line: 1, column: 1))))
                    continue
                }
                names[scenario.name] = file
                suite.scenarios.append(scenario)
            } catch {
                suite.errors.append(error)
            }
        }
        return suite
    }
}
