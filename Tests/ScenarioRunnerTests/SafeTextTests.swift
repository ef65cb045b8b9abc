import Foundation
import TestSupport
import Testing

@testable import ScenarioRunner

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Text from scenario files, devices and adapters reaches a terminal or an XML report only
/// through SafeText: no raw escape sequence, bell or carriage return, and never a character
/// that makes the JUnit file ill-formed.
@Suite struct SafeTextTests {
    @Test func theTerminalNeverGetsControlCharactersRaw() {
        let hostile = "a\u{1B}[2Jb\u{07}c\rd\u{7F}e\u{85}f\u{9B}g\u{202E}h\u{2066}i"
        let shown = SafeText.terminal(hostile)
        #expect(shown == #"a\u{1B}[2Jb\u{07}c\u{0D}d\u{7F}e\u{85}f\u{9B}g\u{202E}h\u{2066}i"#)
        #expect(!shown.unicodeScalars.contains { !SafeText.showsInTerminal($0) })
        // Newlines, tabs and ordinary text (accents, emoji, U+FFFF) stay as they are.
        #expect(SafeText.terminal("línea\n\tok 🎉\u{FFFF}") == "línea\n\tok 🎉\u{FFFF}")
    }

    /// The Markdown summary (issue 39) goes through the same place: a pull-request comment or a
    /// terminal showing it gets no escape sequence, C1 control or bidi override raw.
    @Test func markdownTextIsMadeSafeTheSameWay() {
        let hostile = "name\u{1B}[31m\u{9B}x\u{202E}y"
        for shown in [MarkdownReport.text(hostile), MarkdownReport.code(hostile), MarkdownReport.fenced(hostile)] {
            #expect(!shown.unicodeScalars.contains { !SafeText.showsInTerminal($0) }, "\(shown)")
            #expect(shown.contains("u{1B}") && shown.contains("u{9B}") && shown.contains("u{202E}"), "\(shown)")
        }
    }

    @Test func xmlHasNoCharacterXMLForbids() {
        #expect(SafeText.xml("<a & \"b\" 'c'>") == "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;")
        #expect(SafeText.xml("x\u{FFFE}y\u{FFFF}z\u{01}\r") == #"x\u{FFFE}y\u{FFFF}z\u{01}&#13;"#)
        #expect(SafeText.xml("\u{7F}\u{85}\u{9F}") == #"\u{7F}\u{85}\u{9F}"#)
    }

    /// U+FFFE/FFFF from an adapter used to go into the JUnit file raw: ill-formed XML.
    @Test func aJUnitFileWithHostileTextIsWellFormed() {
        let hostile = "adapter said \u{FFFE}\u{FFFF}\u{1B}[31m\u{07}\u{00}\r\n\u{85}"
        let outcome = ScenarioOutcome(
            scenario: "name " + hostile,
            file: "f.yaml",
            status: .failed,
            failure: hostile,
            failureSummary: hostile,
            virtualMilliseconds: 0,
            wallSeconds: 0,
            log: [hostile],
            covers: [],
            tags: []
        )
        let result = SuiteResult(outcomes: [outcome], adapterName: "web \u{FFFF}")
        for document in [JUnitReport.xml(result)] {
            let parser = XMLParser(data: Data(document.utf8))
            #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
            #expect(!document.unicodeScalars.contains { $0.value == 0xFFFF || $0.value == 0xFFFE || $0.value == 0x1B })
        }
        let page = HTMLReport.html(result)
        #expect(!page.unicodeScalars.contains { $0.value == 0xFFFF || $0.value == 0xFFFE || $0.value == 0x1B })
    }

    /// The adapter's stderr passes through as text made safe, a character split across reads
    /// kept whole.
    @Test func passedThroughStderrIsMadeSafe() throws {
        let caught = Caught()
        let adapter = try SubprocessAdapter(
            command: #"printf 'red\033[31m bell\007 cr\r é\n' >&2; read line; echo '{}'"#,
            options: .init(commandTimeout: 5, stderrSink: { caught.add($0) })
        )
        _ = try? adapter.send(.object([("cmd", "hello")]))
        adapter.close()
        let text = String(decoding: caught.bytes, as: UTF8.self)
        #expect(text == #"red\u{1B}[31m bell\u{07} cr\u{0D} é"# + "\n", "\(text)")
        #expect(SubprocessAdapter.unfinishedUTF8Suffix([0x61, 0xC3]) == [0xC3])
        #expect(SubprocessAdapter.unfinishedUTF8Suffix([0x61, 0xC3, 0xA9]) == [])
        #expect(SubprocessAdapter.unfinishedUTF8Suffix([0xF0, 0x9F, 0x8E]) == [0xF0, 0x9F, 0x8E])
    }

    /// ESC, BEL and CR in a scenario's name and a device's fields reach the terminal written out.
    @Test func theScenariosCommandPrintsNoControlCharacters() throws {
        let dir = try TestFiles.folder([
            "hostile.yaml":
                "name: \"evil \\e[2J\\a\\r name\"\ndevices:\n  phone: {platform: ios, app_version: \"1.0\\e[31m\"}\nsteps:\n  - launch: phone\n  - expect: {device: phone, screen: maintenance}\n"
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try ServerProcess.run(["scenarios", dir, "-v"])
        #expect(run.status == 1)
        let raw = Array(run.stdout.utf8) + Array(run.stderr.utf8)
        #expect(!raw.contains(0x1B) && !raw.contains(0x07) && !raw.contains(0x0D), "\(run.stdout)")
        #expect(run.stdout.contains(#"evil \u{1B}[2J\u{07}\u{0D} name"#), "\(run.stdout)")
    }
}
