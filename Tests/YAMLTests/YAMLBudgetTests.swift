import JSON
import TestSupport
import Testing

@testable import YAML

/// Small YAML must not cost much: aliases count the bytes they copy, positions hold a long key
/// once, and a bad byte is reported where it is.
@Suite struct YAMLBudgetTests {

    /// A 64 KiB key over a 4,000-item list (the issue's 256 KiB over 20,000, scaled down): each
    /// item's position used to be keyed by a JSON Pointer holding the key, 256 MB here.
    @Test func aLongKeyOverALongListIsHeldOnce() throws {
        let key = String(repeating: "k", count: 64 << 10)
        // An explicit key (`? `): an implicit one may not pass 1,024 characters.
        let text = "? " + key + "\n:\n" + String(repeating: "  - x\n", count: 4_000)
        let (document, held) = try ResidentMemory.growth { try YAML.parse(text) }
        #expect(held < 96 << 20, "the document holds \(held) bytes")
        #expect(document.json[key]?.arrayValue?.count == 4_000)
        #expect(document.mark(for: "/" + key + "/3999") == YAMLMark(line: 4_002, column: 5))
        #expect(document.keyMark(for: "/" + key) == YAMLMark(line: 1, column: 3))
    }

    /// The node limit counted an alias of a 1 MiB scalar as one node: 60 of them took 6.3 s and
    /// a 256 KiB rule aliased 20,000 times was 5 GB to whatever read it.
    @Test func aliasesCountTheBytesTheyCopy() {
        let big = String(repeating: "b", count: 1 << 20)
        var text = "big: &big \"\(big)\"\ncopies:\n"
        for _ in 0..<60 { text += "  - *big\n" }
        do {
            _ = try YAML.parse(text)
            Issue.record("60 MiB of aliases were taken")
        } catch {
            #expect(error.message.contains("copy more than 16 MiB"), "\(error)")
            #expect(error.line == 3 + 16, "refused at the alias that passed the budget, \(error.line)")
        }
        // A collection aliased counts its keys and scalars.
        let rule =
            "{" + (0..<64).map { "k\($0): \"\(String(repeating: "v", count: 4_096))\"" }.joined(separator: ", ") + "}"
        var many = "rule: &r \(rule)\nrules:\n"
        for _ in 0..<100 { many += "  - *r\n" }
        #expect(throws: YAMLError.self) { try YAML.parse(many) }
        // Modest reuse stays fine.
        #expect(throws: Never.self) { try YAML.parse("a: &a {x: 1, y: [1, 2]}\nb: *a\nc: *a\n") }
    }

    /// libyaml's reader reports a byte offset, not a mark: errors used to say 1:1.
    @Test func invalidUTF8AndControlCharactersAreReportedWhereTheyAre() {
        func error(_ bytes: [UInt8]) -> YAMLError? {
            do {
                _ = try YAML.parse(bytes)
                return nil
            } catch {
                return error
            }
        }
        let badUTF8 = error(Array("name: ok\nsteps:\n  - é: ".utf8) + [0xFF, 0x0A])
        #expect(badUTF8.map { "\($0.line):\($0.column)" } == "3:8", "\(String(describing: badUTF8))")
        #expect(badUTF8?.message.contains("0xFF") == true, "\(String(describing: badUTF8))")
        // A sequence cut short: at its first byte, the character's column.
        let cut = error(Array("a: 1\nbé: ".utf8) + [0xC3, 0x28, 0x0A])
        #expect(cut.map { "\($0.line):\($0.column)" } == "2:5", "\(String(describing: cut))")
        let control = error(Array("a: 1\nb: x\u{01}\n".utf8))
        #expect(control.map { "\($0.line):\($0.column)" } == "2:5", "\(String(describing: control))")
    }

    /// Found by fuzzing: a key starting with a combining mark makes `/` and the mark one
    /// character, so pointers split and escaped by character lost the key's position.
    @Test func keysStartingWithACombiningMarkKeepTheirPositions() throws {
        let doc = try YAML.parse("a:\n  - \u{59D} S<<: 1\n    \"~\u{301}/\u{301}\": 2\n")
        let item = try #require(doc.child(of: doc.root, key: "a").flatMap { doc.child(of: $0, index: 0) })
        for key in ["\u{59D} S<<", "~\u{301}/\u{301}"] {
            let pointer = YAMLDocument.pointer(YAMLDocument.pointer("/a", 0), key)
            let place = try #require(doc.child(of: item, key: key))
            #expect(doc.mark(for: pointer) == doc.mark(at: place), "\(pointer)")
            #expect(doc.keyMark(for: pointer) == doc.keyMark(at: place), "\(pointer)")
        }
        #expect(doc.mark(for: "/a/0/~0\u{301}~1\u{301}") == YAMLMark(line: 3, column: 13))
    }
}
