import JSON
import YAML

/// The spec's rows (each table cell and list item of `delivery-and-offline.md`) with stable
/// ids, so scenarios can say what they pin and `--coverage` can show what nothing pins.
///
/// ```yaml
/// spec: delivery-and-offline.md
/// rows:
///   - id: check.app-start
///     section: When an app checks
///     text: App start applies the saved answer at once, then fetches a fresh one.
/// ```
public struct SpecCatalogue: Sendable {
    public struct Row: Sendable, Equatable {
        public var id: String
        public var section: String
        public var text: String

        package init(id: String, section: String, text: String) {
            self.id = id
            self.section = section
            self.text = text
        }
    }

    public var spec: String
    public var rows: [Row]
    /// The file it was read from; nil for the built-in catalogue.
    public var file: String?

    package init(spec: String, rows: [Row], file: String?) {
        self.spec = spec
        self.rows = rows
        self.file = file
    }

    /// The catalogue's name in a folder of scenarios: a suite reads it as the catalogue, never as a scenario.
    public static let fileName = "spec-catalogue.yaml"

    public func row(_ id: String) -> Row? { rows.first { $0.id == id } }

    /// The bundled suite's catalogue, compiled into the binary from `Scenarios/spec-catalogue.yaml`
    /// (through the symlink beside this file), so `covers` ids are checked wherever a scenario lives.
    public static let builtIn: SpecCatalogue = {
        do {
            var catalogue = try parse(
                PackageResources.spec_catalogue_yaml,
                file: "Scenarios/" + fileName
            )
            catalogue.file = nil
            return catalogue
        } catch {
            // Pinned by a test; should it ever break, every `covers` id is reported as unknown, never passed.
            return SpecCatalogue(spec: "", rows: [], file: nil)
        }
    }()

    /// For messages: which catalogue an id was looked up in.
    var origin: String { file.map { " (\($0))" } ?? "" }

    public static func parse(_ bytes: [UInt8], file: String) throws(ScenarioError) -> SpecCatalogue {
        let document: YAMLDocument
        do {
            document = try YAML.parse(bytes)
        } catch {
            throw ScenarioError(error.message, at: SourceLocation(file: file, mark: error.mark))
        }
        let diagnostics = Diagnostics()
        let root = Node(document: document, file: file, diagnostics: diagnostics)
        try root.checkKeys(["spec", "rows"], what: "the spec catalogue")
        var catalogue = SpecCatalogue(spec: try root.child("spec")?.string() ?? "", rows: [], file: file)
        for node in try root.required("rows", in: "the spec catalogue").array() {
            try node.checkKeys(["id", "section", "text"], what: "a catalogue row")
            let row = Row(
                id: try node.required("id", in: "a catalogue row").string(),
                section: try node.required("section", in: "a catalogue row").string(),
                text: try node.required("text", in: "a catalogue row").string()
            )
            if catalogue.row(row.id) != nil { throw node.error("catalogue id '\(row.id)' appears twice") }
            catalogue.rows.append(row)
        }
        if let first = diagnostics.sorted.first { throw first }
        return catalogue
    }
}
