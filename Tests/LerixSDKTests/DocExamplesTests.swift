import Foundation
import Testing

/// The Swift libraries' documentation compiles: every `swift` example in the doc comments of
/// LerixSDK and LerixMock and in the README's "Using the Swift SDK" section appears, line for
/// line, in a test source file (this target's DocExamples.swift and PackageDocExamples.swift, the
/// fixture package's AppTests), so a wrong example fails the build. And every public symbol has a
/// doc comment.
@Suite struct DocExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let exampleFiles = [
        "Tests/LerixSDKTests/DocExamples.swift", "Tests/LerixSDKTests/PackageDocExamples.swift",
        "Tests/LerixMockFixture/Tests/AppTests/ReadmeExampleTests.swift",
        "Tests/LerixMockFixture/Tests/AppTests/DocExampleTests.swift",
    ]

    static func lines(of path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init
        )
    }

    /// The example files' lines, trimmed (indentation may differ from the docs).
    static func compiledLines() throws -> [String] {
        try exampleFiles.flatMap { try lines(of: root + "/" + $0) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Whether `block` (trimmed, blank lines dropped) appears as consecutive non-blank lines.
    static func contains(_ haystack: [String], _ block: [String]) -> Bool {
        let needle = block.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let lines = haystack.filter { !$0.isEmpty }
        guard !needle.isEmpty, needle.count <= lines.count else { return needle.isEmpty }
        return (0...(lines.count - needle.count)).contains { start in
            Array(lines[start..<start + needle.count]) == needle
        }
    }

    /// The libraries an app team uses: their sources' doc comments are checked.
    static func sdkSources() throws -> [String] {
        try ["/Sources/LerixSDK", "/Sources/LerixMock"].flatMap { name in
            let folder = root + name
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
                .sorted()
                .map { folder + "/" + $0 }
        }
    }

    /// The ```swift blocks among `lines`; `content` gives a line's text, or nil for a line
    /// outside the text (code around doc comments).
    static func swiftBlocks(in lines: [String], content: (String) -> String? = { $0 }) -> [[String]] {
        var blocks: [[String]] = []
        var block: [String]?
        for line in lines {
            guard let text = content(line) else { continue }
            if text.hasPrefix("```swift") {
                block = []
            } else if text.hasPrefix("```"), let finished = block {
                blocks.append(finished)
                block = nil
            } else {
                block?.append(text)
            }
        }
        return blocks
    }

    @Test func everyExampleInTheSDKsDocCommentsIsCompiledByTheTests() throws {
        let compiled = try Self.compiledLines()
        var blocks = 0
        for file in try Self.sdkSources() {
            let examples = Self.swiftBlocks(in: try Self.lines(of: file)) { line in
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("///") else { return nil }
                return text.dropFirst(3).hasPrefix(" ") ? String(text.dropFirst(4)) : String(text.dropFirst(3))
            }
            for example in examples {
                blocks += 1
                #expect(
                    Self.contains(compiled, example),
                    "\(file): an example not compiled by the tests:\n\(example.joined(separator: "\n"))"
                )
            }
        }
        #expect(blocks >= 15)
    }

    @Test func everySwiftExampleInTheReadmesSDKSectionIsCompiledByTheTests() throws {
        let compiled = try Self.compiledLines()
        let readme = try Self.lines(of: Self.root + "/README.md")
        guard let start = readme.firstIndex(of: "## Using the Swift SDK") else {
            Issue.record("README.md has no \"## Using the Swift SDK\" section")
            return
        }
        let examples = Self.swiftBlocks(in: Array(readme[(start + 1)...].prefix { !$0.hasPrefix("## ") }))
        for example in examples {
            #expect(
                Self.contains(compiled, example),
                "README.md: an example not compiled by the tests:\n\(example.joined(separator: "\n"))"
            )
        }
        #expect(examples.count >= 2)
    }

    @Test func everyPublicSymbolOfTheSDKHasADocComment() throws {
        var missing: [String] = []
        for file in try Self.sdkSources() {
            let lines = try Self.lines(of: file)
            for (n, line) in lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("public ") || (text.hasPrefix("@") && text.contains(" public ")) else { continue }
                var above = n - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                if above < 0 || !lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    missing.append("\((file as NSString).lastPathComponent):\(n + 1): \(text)")
                }
            }
        }
        #expect(missing.isEmpty, "public symbols without a doc comment:\n\(missing.joined(separator: "\n"))")
    }
}
