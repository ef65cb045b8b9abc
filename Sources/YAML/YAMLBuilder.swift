import CYAML
import JSON

/// Turns libyaml's event stream into one ``YAMLDocument``; the only code that touches libyaml.
struct YAMLBuilder {
    /// One open collection. Mutated in place through `stack[top]`, never copied out and
    /// back: copying a frame copied its key set on every insert (a 20k-key mapping took 9 s).
    private struct Frame {
        enum Kind { case sequence, mapping }
        let kind: Kind
        let pointer: String
        let anchor: String?
        /// Nodes in this collection so far, itself included.
        var nodes = 1
        var items: [JSON] = []
        var pairs: [(String, JSON)] = []
        /// A mapping's key waiting for its value; nil when the next node is a key.
        var pendingKey: (String, YAMLMark)?
        var merges: [JSONObject] = []
        var explicitKeys: Set<String> = []

        init(_ kind: Kind, pointer: String, anchor: String?) {
            self.kind = kind
            self.pointer = pointer
            self.anchor = anchor
        }

        /// True for a mapping whose next node is a key.
        var awaitsKey: Bool { kind == .mapping && pendingKey == nil }
    }

    private var stack: [Frame] = []
    private var anchors: [String: (JSON, Int)] = [:]
    private var marks: [String: YAMLMark] = [:]
    private var keyMarks: [String: YAMLMark] = [:]
    private var totalNodes = 0
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
                return .failure(Self.parserError(parser.pointee))
            }
            let outcome = handle(event)
            let done = event.type == YAML_STREAM_END_EVENT
            yaml_event_delete(&event)
            if case .failure(let error) = outcome { return .failure(error) }
            if done { break }
        }
        return .success(YAMLDocument(json: root ?? .null, marks: marks, keyMarks: keyMarks))
    }

    private static func parserError(_ p: yaml_parser_t) -> YAMLError {
        let problem = p.problem.map { String(cString: $0) } ?? "malformed YAML"
        var message = problem
        if let context = p.context.map({ String(cString: $0) }) {
            message = "\(problem) (\(context) at \(p.context_mark.line + 1):\(p.context_mark.column + 1))"
        }
        return YAMLError(
            message,
            at: YAMLMark(line: Int(p.problem_mark.line) + 1, column: Int(p.problem_mark.column) + 1)
        )
    }

    private static func string(_ p: UnsafeMutablePointer<yaml_char_t>?, _ length: Int) -> String {
        guard let p else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: length), as: UTF8.self)
    }

    private static func cString(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let p else { return nil }
        return String(cString: p)
    }

    private var currentPointer: String? {
        guard let top = stack.last else { return "" }
        switch top.kind {
        case .sequence:
            return YAMLDocument.pointer(top.pointer, top.items.count)
        case .mapping:
            guard let key = top.pendingKey else { return nil }  // the node is a key
            return YAMLDocument.pointer(top.pointer, key.0)
        }
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
                    keyMarks[YAMLDocument.pointer(stack[stack.count - 1].pointer, text)] = mark
                    if let anchor { anchors[anchor] = (.string(text), 1) }
                    return .success(())
                }
                let outcome = injectKey(text, mark: mark)
                if case .success = outcome, let anchor { anchors[anchor] = (.string(text), 1) }
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
            if let anchor { anchors[anchor] = (value, 1) }
            return add(value, nodes: 1, mark: mark)
        case YAML_ALIAS_EVENT:
            let name = Self.cString(event.data.alias.anchor) ?? ""
            guard let (value, nodes) = anchors[name] else {
                return .failure(YAMLError("unknown alias '*\(name)'", at: mark))
            }
            if stack.last?.awaitsKey == true {
                guard case .string(let key) = value else {
                    return .failure(YAMLError("an alias used as a mapping key must name a scalar", at: mark))
                }
                return injectKey(key, mark: mark)
            }
            return add(value, nodes: nodes, mark: mark)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            guard let pointer = currentPointer else {
                return .failure(YAMLError("a mapping key must be a plain value, not a list or mapping", at: mark))
            }
            guard stack.count < YAML.maximumDepth else {
                return .failure(YAMLError("nesting deeper than \(YAML.maximumDepth) levels", at: mark))
            }
            marks[pointer] = mark
            if event.type == YAML_SEQUENCE_START_EVENT {
                stack.append(Frame(.sequence, pointer: pointer, anchor: Self.cString(event.data.sequence_start.anchor)))
            } else {
                stack.append(Frame(.mapping, pointer: pointer, anchor: Self.cString(event.data.mapping_start.anchor)))
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
            let anchor = top.anchor
            let nodes = top.nodes
            let pointer = top.pointer
            if let anchor { anchors[anchor] = (value, nodes) }
            let m = marks[pointer] ?? mark
            totalNodes -= nodes - 1  // children were counted as they arrived; `add` counts them again
            return add(value, nodes: nodes, mark: m, recordMark: false)
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
        keyMarks[YAMLDocument.pointer(stack[top].pointer, key)] = mark
        return .success(())
    }

    /// Places a finished value into the enclosing container (or as the root).
    private mutating func add(
        _ value: JSON,
        nodes: Int,
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
        guard !stack.isEmpty else {
            root = value
            if recordMark { marks[""] = mark }
            return .success(())
        }
        let top = stack.count - 1
        switch stack[top].kind {
        case .sequence:
            if recordMark { marks[YAMLDocument.pointer(stack[top].pointer, stack[top].items.count)] = mark }
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
                keyMarks[YAMLDocument.pointer(stack[top].pointer, key)] = nil
            } else {
                if recordMark { marks[YAMLDocument.pointer(stack[top].pointer, key)] = mark }
                stack[top].pairs.append((key, value))
            }
        }
        return .success(())
    }
}
