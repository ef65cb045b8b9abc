import Foundation
import JSON
import TestSupport
import Testing

/// docs/ADAPTER.md and adapter-protocol.schema.json say the same: every field of the schema is
/// named in the prose, and every field the prose's tables name is in the schema, required or
/// optional alike in both.
@Suite struct AdapterDocSchemaTests {
    static let root = TestFiles.packageRoot
    static var page: String {
        (try? String(contentsOfFile: root + "/docs/ADAPTER.md", encoding: .utf8)) ?? ""
    }
    static var defs: JSONObject {
        let text =
            (try? String(
                contentsOfFile: root + "/Sources/ScenarioRunner/Conformance/adapter-protocol.schema.json",
                encoding: .utf8
            )) ?? "{}"
        return (try? JSON.parse(Array(text.utf8)))?["$defs"]?.objectValue ?? JSONObject()
    }

    /// The `code spans` of a piece of Markdown.
    static func spans(_ text: some StringProtocol) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    /// The rows of the table after the line starting with `heading`, as cells.
    static func table(after heading: String) -> [[String]] {
        var rows: [[String]] = []
        var inside = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(heading) {
                inside = true
                continue
            }
            guard inside else { continue }
            if line.hasPrefix("|") {
                // `\|` is a pipe inside a cell (`kind: connection \| status`), not a border.
                let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}").split(
                    separator: "|",
                    omittingEmptySubsequences: false
                ).dropFirst().dropLast()
                rows.append(
                    cells.map {
                        $0.replacingOccurrences(of: "\u{1}", with: "|").trimmingCharacters(in: .whitespaces)
                    }
                )
            } else if !rows.isEmpty {
                break
            }
        }
        return Array(rows.dropFirst(2))  // the header and its rule
    }

    static func properties(_ def: String) -> Set<String> {
        Set(defs[def]?["properties"]?.objectValue?.keys ?? [])
    }

    static func required(_ def: String) -> Set<String> {
        Set(defs[def]?["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// The request definition for a command: its `cmd` is that const, or in its enum.
    static func requestDef(for cmd: String) -> String? {
        defs.keys.first { key in
            guard key.hasPrefix("request."), let c = defs[key]?["properties"]?["cmd"] else { return false }
            return c["const"]?.stringValue == cmd || c["enum"]?.arrayValue?.contains(.string(cmd)) == true
        }
    }

    @Test func everySchemaFieldIsNamedInThePages() {
        let named = Set(
            Self.spans(Self.page).flatMap { span in
                // `{kind: connection | status | body, status, reason, at}` names several.
                span.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
            }
        )
        var missing: [String] = []
        for (def, schema) in Self.defs {
            for key in schema["properties"]?.objectValue?.keys ?? [] where !named.contains(key) {
                missing.append("\(def).\(key)")
            }
        }
        #expect(missing.isEmpty, "schema fields docs/ADAPTER.md never names: \(missing.sorted())")
    }

    /// Each row of the Commands table names exactly the request's fields, `(optional)` exactly
    /// where the schema does not require them.
    @Test func theCommandsTableAndTheRequestSchemasAgree() {
        let rows = Self.table(after: "## Commands")
        #expect(rows.count >= 14)
        for row in rows where row.count >= 2 {
            for cmd in Self.spans(row[0]) {
                guard let def = Self.requestDef(for: cmd) else {
                    Issue.record("docs/ADAPTER.md lists command `\(cmd)`, which the schema has no request for")
                    continue
                }
                var fields: Set<String> = []
                var optional: Set<String> = []
                let cell = row[1]
                for (i, part) in cell.components(separatedBy: "`").enumerated() where i % 2 == 1 {
                    fields.insert(part)
                    let after = cell.components(separatedBy: "`\(part)`").dropFirst().first ?? ""
                    if after.hasPrefix(" (optional)") { optional.insert(part) }
                }
                let schemaFields = Self.properties(def).subtracting(["id", "cmd"])
                #expect(
                    fields == schemaFields,
                    "`\(cmd)`: the page lists \(fields.sorted()), the schema \(schemaFields.sorted())"
                )
                let schemaOptional = schemaFields.subtracting(Self.required(def))
                #expect(
                    optional == schemaOptional,
                    "`\(cmd)`: optional on the page \(optional.sorted()), in the schema \(schemaOptional.sorted())"
                )
            }
        }
    }

    /// `config` in the `create` row: every key the schema has, and nothing but keys and their values.
    @Test func createsConfigAgrees() {
        let row = Self.table(after: "## Commands").first { $0.first == "`create`" }
        let text = row?[2] ?? ""
        let segment =
            text.components(separatedBy: "`config`:").dropFirst().first?.components(separatedBy: "; `replace`")
            .first ?? ""
        let named = Set(Self.spans(segment))
        let keys = Self.properties("config")
        var values: Set<String> = []
        for key in keys {
            for value in Self.defs["config"]?["properties"]?[key]?["enum"]?.arrayValue ?? [] {
                if let v = value.stringValue { values.insert(v) }
            }
        }
        #expect(keys.isSubset(of: named), "config keys the page leaves out: \(keys.subtracting(named).sorted())")
        // Besides keys, the segment names their values and commands (`terminate`).
        let others = named.subtracting(keys).subtracting(values).filter { Self.requestDef(for: $0) == nil }
        #expect(others.isEmpty, "the page names config keys the schema lacks: \(others.sorted())")
    }

    /// The State table names every state field, `(optional)` exactly where the schema does not
    /// require it, and the keys of each object field as the schema's definitions have them.
    @Test func theStateTableAndTheStateSchemaAgree() {
        let rows = Self.table(after: "Every field, as the schema's `state` has it")
        var fields: Set<String> = []
        var optional: Set<String> = []
        var nested: [String: Set<String>] = [:]
        for row in rows where row.count >= 3 {
            let names = Self.spans(row[0])
            fields.formUnion(names)
            if row[1].contains("(optional)") { optional.formUnion(names) }
            // `{rule, kind: optional | recommended, below}`: the keys before each comma.
            if let open = row[1].firstIndex(of: "{"), let close = row[1].firstIndex(of: "}") {
                let keys = row[1][row[1].index(after: open)..<close].split(separator: ",").map {
                    String($0.split(separator: ":").first ?? "").trimmingCharacters(in: .whitespaces)
                }
                for name in names { nested[name] = Set(keys) }
            }
        }
        #expect(
            fields == Self.properties("state"),
            "page \(fields.sorted()), schema \(Self.properties("state").sorted())"
        )
        let schemaOptional = Self.properties("state").subtracting(Self.required("state"))
        #expect(optional == schemaOptional, "optional: page \(optional.sorted()), schema \(schemaOptional.sorted())")
        #expect(nested["optional_update"] == Self.properties("update"))
        #expect(nested["required_update"]?.isSubset(of: Self.properties("update")) == true)
        #expect(nested["maintenance"] == Self.properties("window"))
        #expect(nested["last_failure"] == Self.properties("failure"))
        #expect(nested["queued"] == Self.properties("counts"))
    }
}
