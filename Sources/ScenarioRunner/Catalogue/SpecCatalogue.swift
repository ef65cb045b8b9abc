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
    }

    public var spec: String
    public var rows: [Row]

    public func row(_ id: String) -> Row? { rows.first { $0.id == id } }

    public static func parse(_ bytes: [UInt8], file: String) throws(ScenarioError) -> SpecCatalogue {
        let document: YAMLDocument
        do {
            document = try YAML.parse(bytes)
        } catch {
            throw ScenarioError(error.message, at: SourceLocation(file: file, mark: error.mark))
        }
        let root = Node(document: document, file: file)
        try root.checkKeys(["spec", "rows"], what: "the spec catalogue")
        var catalogue = SpecCatalogue(spec: try root.child("spec")?.string() ?? "", rows: [])
        for node in try root.required("rows", in: "the spec catalogue").array() {
            try node.checkKeys(["id", "section", "text"], what: "a catalogue row")
            let row = Row(id: try node.required("id", in: "a catalogue row").string(),
                          section: try node.required("section", in: "a catalogue row").string(),
                          text: try node.required("text", in: "a catalogue row").string())
            if catalogue.row(row.id) != nil { throw node.error("catalogue id '\(row.id)' appears twice") }
            catalogue.rows.append(row)
        }
        return catalogue
    }
}
