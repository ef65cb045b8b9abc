import CYAML
import JSON

/// Turns libyaml's event stream into one ``YAMLDocument``; the only code that touches libyaml.
struct YAMLBuilder {
    /// One open collection. Mutated in place through `stack[top]`, never copied out and
    /// back: copying a frame copied its key set on every insert (a 20k-key mapping took 9 s).
    private struct Frame {
        enum Kind { case sequence, mapping }
        let kind: Kind
        /// Its position's entry in the document's tree.
        let entry: Int32
        let anchor: String?
        /// Nodes in this collection so far, itself included.
        var nodes = 1
        /// Bytes of its scalars and keys so far (what an alias of it copies).
        var bytes = 0
        var items: [JSON] = []
        var pairs: [(String, JSON)] = []
        /// A mapping's key waiting for its value; nil when the next node is a key.
        var pendingKey: (String, YAMLMark)?
        var merges: [JSONObject] = []
        var explicitKeys: Set<String> = []

        init(_ kind: Kind, entry: Int32, anchor: String?) {
            self.kind = kind
            self.entry = entry
            self.anchor = anchor
        }

        /// True for a mapping whose next node is a key.
        var awaitsKey: Bool { kind == .mapping && pendingKey == nil }
    }

    private var stack: [Frame] = []
    /// Each anchor's value, its node count and its bytes.
    private var anchors: [String: (value: JSON, nodes: Int, bytes: Int)] = [:]
    /// The position tree: entry 0 is the root (the first node of the document).
    private var entries: [YAMLDocument.Entry] = []
    private var totalNodes = 0
    /// Bytes copied by aliases so far.
    private var aliasBytes = 0
    private var root: JSON?
    private var documents = 0

    mutating func run(_ input: UnsafeBufferPointer<UInt8>) -> Result<YAMLDocument, YAMLError> {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            return .failure(YAMLError("out of memory starting the YAML parser", at: YAMLMark(line: 1, column: 1)))
        }
        defer { yaml_parser_delete(parser) }
        if let base = input.baseAddress {
            yaml_parser_set_input_string(parser, base, input.count)
        } else {
            var empty: UInt8 = 0
            yaml_parser_set_input_string(parser, &empty, 0)
            return .success(YAMLDocument(json: .null))
        }
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else {
                return .failure(Self.parserError(parser.pointee, input: input))
            }
            let outcome = handle(event)
            let done = event.type == YAML_STREAM_END_EVENT
            yaml_event_delete(&event)
            if case .failure(let error) = outcome { return .failure(error) }
            if done { break }
        }
        return .success(YAMLDocument(json: root ?? .null, entries: entries))
    }

    private static func parserError(_ p: yaml_parser_t, input: UnsafeBufferPointer<UInt8>) -> YAMLError {
        let problem = p.problem.map { String(cString: $0) } ?? "malformed YAML"
        if p.error == YAML_READER_ERROR {
            // libyaml's reader (invalid UTF-8, a control character) gives a byte offset, not a
            // mark: the line and column are counted here, as an editor shows them.
            var offset = min(Int(p.problem_offset), input.count)
            // A sequence cut short is reported at its first byte, where the bad character starts.
            if problem.hasPrefix("invalid trailing") || problem.hasPrefix("incomplete") {
                var lead = offset - 1
                while lead >= 0, offset - lead < 4, input[lead] & 0xC0 == 0x80 { lead -= 1 }
                if lead >= 0, input[lead] >= 0xC0 { offset = lead }
            }
            var message = problem
            if p.problem_value >= 0 {
                let hex = String(p.problem_value, radix: 16, uppercase: true)
                message += " (" + (hex.count < 2 ? "0x0" : "0x") + hex + ")"
            }
            return YAMLError(message, at: mark(ofByte: offset, in: input))
        }
        var message = problem
        if let context = p.context.map({ String(cString: $0) }) {
            message = "\(problem) (\(context) at \(p.context_mark.line + 1):\(p.context_mark.column + 1))"
        }
        return YAMLError(
            message,
            at: YAMLMark(line: Int(p.problem_mark.line) + 1, column: Int(p.problem_mark.column) + 1)
        )
    }

    /// The line and column (in characters, 1-based) of byte `offset`.
    static func mark(ofByte offset: Int, in input: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        var line = 1
        var column = 1
        for byte in input[..<offset] {
            if byte == 10 {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // a character's first byte
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }

    private static func string(_ p: UnsafeMutablePointer<yaml_char_t>?, _ length: Int) -> String {
        guard let p else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: length), as: UTF8.self)
    }

    private static func cString(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let p else { return nil }
        return String(cString: p)
    }

    /// Gives the node starting at `mark` a position, linked from its parent by the pending
    /// key or the next index. A merge key's value gets none (its keys answer the mapping's).
    private mutating func record(_ mark: YAMLMark) -> Int32 {
        let index = Int32(entries.count)
        var entry = YAMLDocument.Entry(mark: mark)
        if let top = stack.last {
            switch top.kind {
            case .sequence:
                entries[Int(top.entry)].items.append(index)
            case .mapping:
                if let (key, keyMark) = top.pendingKey, !(key == "<<" && !top.explicitKeys.contains("<<")) {
                    entry.keyMark = keyMark
                    entries[Int(top.entry)].keys[key] = index
                }
            }
        }
        entries.append(entry)
        return index
    }

    private mutating func handle(_ event: yaml_event_t) -> Result<Void, YAMLError> {
        let mark = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                return .failure(
                    YAMLError(
                        "a second YAML document (after `---`) is not supported; put one document in each file",
                        at: mark
                    )
                )
            }
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let text = Self.string(s.value, Int(s.length))
            let anchor = Self.cString(s.anchor)
            let tag = Self.cString(s.tag)
            let plain = s.style == YAML_PLAIN_SCALAR_STYLE
            // A mapping waiting for a key takes this scalar as the key.
            if stack.last?.awaitsKey == true {
                if plain && text == "<<" {
                    stack[stack.count - 1].pendingKey = (text, mark)
                    if let anchor { anchors[anchor] = (.string(text), 1, text.utf8.count) }
                    return .success(())
                }
                let outcome = injectKey(text, mark: mark)
                if case .success = outcome, let anchor { anchors[anchor] = (.string(text), 1, text.utf8.count) }
                return outcome
            }
            var value: JSON
            if let tag, tag != "!" {
                guard let resolved = YAMLScalar.resolve(text, tag: tag) else {
                    return .failure(YAMLError("'\(text)' cannot be read as \(Self.tagName(tag))", at: mark))
                }
                value = resolved
            } else {
                value = plain && tag == nil ? YAMLScalar.resolvePlain(text) : .string(text)
            }
            if let anchor { anchors[anchor] = (value, 1, text.utf8.count) }
            return add(value, nodes: 1, bytes: text.utf8.count, mark: mark)
        case YAML_ALIAS_EVENT:
            let name = Self.cString(event.data.alias.anchor) ?? ""
            guard let (value, nodes, bytes) = anchors[name] else {
                return .failure(YAMLError("unknown alias '*\(name)'", at: mark))
            }
            // An alias costs what it copies: bounded in bytes as well as nodes, so a large
            // value aliased many times fails here, not in whatever reads the document.
            aliasBytes += bytes
            guard aliasBytes <= YAML.maximumAliasBytes else {
                return .failure(
                    YAMLError(
                        "aliases in the document copy more than \(YAML.maximumAliasBytes >> 20) MiB: refusing a possible alias bomb",
                        at: mark
                    )
                )
            }
            if stack.last?.awaitsKey == true {
                guard case .string(let key) = value else {
                    return .failure(YAMLError("an alias used as a mapping key must name a scalar", at: mark))
                }
                return injectKey(key, mark: mark)
            }
            return add(value, nodes: nodes, bytes: bytes, mark: mark)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            guard stack.last?.awaitsKey != true else {
                return .failure(YAMLError("a mapping key must be a plain value, not a list or mapping", at: mark))
            }
            guard stack.count < YAML.maximumDepth else {
                return .failure(YAMLError("nesting deeper than \(YAML.maximumDepth) levels", at: mark))
            }
            let entry = record(mark)
            if event.type == YAML_SEQUENCE_START_EVENT {
                stack.append(Frame(.sequence, entry: entry, anchor: Self.cString(event.data.sequence_start.anchor)))
            } else {
                stack.append(Frame(.mapping, entry: entry, anchor: Self.cString(event.data.mapping_start.anchor)))
            }
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let top = stack.popLast() else { return .success(()) }
            let value: JSON
            switch top.kind {
            case .sequence:
                value = .array(top.items)
            case .mapping:
                var object = JSONObject(top.pairs)
                for merged in top.merges {
                    for (k, v) in merged where !top.explicitKeys.contains(k) && object[k] == nil {
                        object[k] = v
                    }
                }
                value = .object(object)
            }
            if let anchor = top.anchor { anchors[anchor] = (value, top.nodes, top.bytes) }
            totalNodes -= top.nodes - 1  // children were counted as they arrived; `add` counts them again
            return add(value, nodes: top.nodes, bytes: top.bytes, mark: entries[Int(top.entry)].mark, recordMark: false)
        default:
            break
        }
        return .success(())
    }

    private static func tagName(_ tag: String) -> String {
        let prefix = "tag:yaml.org,2002:"
        return tag.hasPrefix(prefix)
            ? "!!" + tag.dropFirst(prefix.count)
            : "tag \(tag) (only !!str, !!int, !!float, !!bool, !!null are supported)"
    }

    /// Makes `key` the pending key of the mapping on top; a repeated key is an error.
    private mutating func injectKey(_ key: String, mark: YAMLMark) -> Result<Void, YAMLError> {
        guard stack.last?.awaitsKey == true else { return .success(()) }
        let top = stack.count - 1
        guard stack[top].explicitKeys.insert(key).inserted else {
            return .failure(YAMLError("duplicate key '\(key)'", at: mark))
        }
        stack[top].pendingKey = (key, mark)
        stack[top].bytes += key.utf8.count
        return .success(())
    }

    /// Places a finished value into the enclosing container (or as the root).
    private mutating func add(
        _ value: JSON,
        nodes: Int,
        bytes: Int,
        mark: YAMLMark,
        recordMark: Bool = true
    ) -> Result<Void, YAMLError> {
        totalNodes += nodes
        guard totalNodes <= YAML.maximumNodes else {
            return .failure(
                YAMLError(
                    "the document expands to more than \(YAML.maximumNodes) nodes (aliases copy their anchor): refusing a possible alias bomb",
                    at: mark
                )
            )
        }
        if recordMark { _ = record(mark) }
        guard !stack.isEmpty else {
            root = value
            return .success(())
        }
        let top = stack.count - 1
        stack[top].bytes += bytes
        switch stack[top].kind {
        case .sequence:
            stack[top].items.append(value)
            stack[top].nodes += nodes
        case .mapping:
            guard let (key, keyMark) = stack[top].pendingKey else { return .success(()) }
            stack[top].pendingKey = nil
            stack[top].nodes += nodes
            if key == "<<", !stack[top].explicitKeys.contains("<<") {
                switch value {
                case .object(let o): stack[top].merges.append(o)
                case .array(let list):
                    for item in list {
                        guard case .object(let o) = item else {
                            return .failure(
                                YAMLError("a merge key (<<) takes a mapping or a list of mappings", at: mark)
                            )
                        }
                        stack[top].merges.append(o)
                    }
                default:
                    return .failure(YAMLError("a merge key (<<) takes a mapping or a list of mappings", at: keyMark))
                }
            } else {
                stack[top].pairs.append((key, value))
            }
        }
        return .success(())
    }
}
