import Foundation
import JSON
import TestSupport
import Testing
import YAML

/// The documentation as a reader of a fresh clone meets it: every link leads to a file of
/// the repository, and docs/behaviour.md explains every row of the spec catalogue, with
/// scenarios that really cover it.
@Suite struct DocsTests {
    static var root: String { TestFiles.packageRoot }

    /// README.md, every Markdown file under docs/ and Scenarios/.
    static func markdownFiles() throws -> [String] {
        var files = ["README.md"]
        for folder in ["docs", "Scenarios"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).filter {
                $0.hasSuffix(".md")
            }
            files += names.sorted().map { folder + "/" + $0 }
        }
        return files
    }

    /// The targets of `[text](target)` links, code spans left out.
    static func links(in text: String) -> [String] {
        var out: [String] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                out.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return out
    }

    @Test func everyLinkLeadsToAFileOfTheRepository() throws {
        let rootURL = URL(fileURLWithPath: Self.root).standardizedFileURL.path
        var checked = 0
        for file in try Self.markdownFiles() {
            let text = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8)
            let folder = (file as NSString).deletingLastPathComponent
            for link in Self.links(in: text) {
                if link.hasPrefix("#") { continue }
                #expect(!link.contains("://"), "\(file) links outside the repository: \(link)")
                if link.contains("://") { continue }
                let path = String(link.split(separator: "#", maxSplits: 1).first ?? "")
                let target = URL(fileURLWithPath: Self.root + "/" + (folder.isEmpty ? "" : folder + "/") + path)
                    .standardizedFileURL.path
                #expect(target.hasPrefix(rootURL + "/"), "\(file) links outside the repository: \(link)")
                #expect(FileManager.default.fileExists(atPath: target), "\(file) links to a missing file: \(link)")
                checked += 1
            }
        }
        #expect(checked > 10)
    }

    @Test func theBehaviourPageExplainsEveryCatalogueRowWithScenariosThatCoverIt() throws {
        let catalogue = try YAML.parse(
            Array(try String(contentsOfFile: Self.root + "/Scenarios/spec-catalogue.yaml", encoding: .utf8).utf8)
        ).json
        let ids = (catalogue["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(ids.count >= 30)

        // Each `#### \`id\`` section of docs/behaviour.md, with the scenario files it links.
        let page = try String(contentsOfFile: Self.root + "/docs/behaviour.md", encoding: .utf8)
        var sections: [(id: String, files: [String])] = []
        for line in page.split(separator: "\n") {
            if line.hasPrefix("#### `"), line.hasSuffix("`") {
                sections.append((String(line.dropFirst(6).dropLast()), []))
            } else if !sections.isEmpty {
                for link in Self.links(in: String(line))
                where link.hasPrefix("../Scenarios/") && link.hasSuffix(".yaml") {
                    sections[sections.count - 1].files.append(String(link.dropFirst("../Scenarios/".count)))
                }
            }
        }
        #expect(sections.map(\.id) == ids, "docs/behaviour.md must list the catalogue's ids, in its order")
        for section in sections {
            #expect(!section.files.isEmpty, "\(section.id) names no scenario")
            for file in section.files {
                let text = try String(contentsOfFile: Self.root + "/Scenarios/" + file, encoding: .utf8)
                let covers =
                    try YAML.parse(Array(text.utf8)).json["covers"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(
                    covers.contains(section.id),
                    "docs/behaviour.md says \(file) pins \(section.id), but its covers are \(covers)"
                )
            }
        }
    }
}
