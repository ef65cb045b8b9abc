import CYAML
import JSON

/// Turns libyaml's event stream into one ``YAMLDocument``; the only code that touches libyaml.
struct YAMLBuilder {
    private enum Frame {
        case sequence(items: [JSON], pointer: String, anchor: String?, nodes: Int)
        case mapping(pairs: [(String, JSON)], pointer: String, anchor: String?, nodes: Int,
                     pendingKey: (String, YAMLMark)?, merges: [JSONObject], explicitKeys: Set<String>)
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
        return YAMLError(message, at: YAMLMark(line: Int(p.problem_mark.line) + 1, column: Int(p.problem_mark.column) + 1))
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
        switch top {
        case .sequence(let items, let pointer, _, _):
            return YAMLDocument.pointer(pointer, items.count)
        case .mapping(_, let pointer, _, _, let pendingKey, _, _):
            guard let key = pendingKey else { return nil }  // the node is a key
            return YAMLDocument.pointer(pointer, key.0)
        }
    }

    private mutating func handle(_ event: yaml_event_t) -> Result<Void, YAMLError> {
        let mark = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                return .failure(YAMLError("a second YAML document (after `---`) is not supported; put one document in each file", at: mark))
            }
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let text = Self.string(s.value, Int(s.length))
            let anchor = Self.cString(s.anchor)
            let tag = Self.cString(s.tag)
            let plain = s.style == YAML_PLAIN_SCALAR_STYLE
            // A mapping waiting for a key takes this scalar as the key.
            if case .mapping(let pairs, let pointer, let a, let n, nil, let merges, var explicit)? = stack.last {
                if explicit.contains(text) && !(plain && text == "<<") {
                    return .failure(YAMLError("duplicate key '\(text)'", at: mark))
                }
                if !(plain && text == "<<") { explicit.insert(text) }
                stack[stack.count - 1] = .mapping(pairs: pairs, pointer: pointer, anchor: a, nodes: n,
                                                  pendingKey: (text, mark), merges: merges, explicitKeys: explicit)
                keyMarks[YAMLDocument.pointer(pointer, text)] = mark
                if let anchor { anchors[anchor] = (.string(text), 1) }
                return .success(())
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
            if case .mapping(_, _, _, _, nil, _, _)? = stack.last {
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
                let s = event.data.sequence_start
                stack.append(.sequence(items: [], pointer: pointer, anchor: Self.cString(s.anchor), nodes: 1))
            } else {
                let m = event.data.mapping_start
                stack.append(.mapping(pairs: [], pointer: pointer, anchor: Self.cString(m.anchor), nodes: 1,
                                      pendingKey: nil, merges: [], explicitKeys: []))
            }
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let top = stack.popLast() else { return .success(()) }
            let value: JSON, anchor: String?, nodes: Int, pointer: String
            switch top {
            case .sequence(let items, let p, let a, let n):
                value = .array(items); anchor = a; nodes = n; pointer = p
            case .mapping(let pairs, let p, let a, let n, _, let merges, let explicit):
                var object = JSONObject(pairs)
                for merged in merges {
                    for (k, v) in merged where !explicit.contains(k) && object[k] == nil {
                        object[k] = v
                    }
                }
                value = .object(object); anchor = a; nodes = n; pointer = p
            }
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
        return tag.hasPrefix(prefix) ? "!!" + tag.dropFirst(prefix.count) : "tag \(tag) (only !!str, !!int, !!float, !!bool, !!null are supported)"
    }

    private mutating func injectKey(_ key: String, mark: YAMLMark) -> Result<Void, YAMLError> {
        guard case .mapping(let pairs, let pointer, let a, let n, nil, let merges, var explicit)? = stack.last else {
            return .success(())
        }
        if explicit.contains(key) { return .failure(YAMLError("duplicate key '\(key)'", at: mark)) }
        explicit.insert(key)
        stack[stack.count - 1] = .mapping(pairs: pairs, pointer: pointer, anchor: a, nodes: n,
                                          pendingKey: (key, mark), merges: merges, explicitKeys: explicit)
        keyMarks[YAMLDocument.pointer(pointer, key)] = mark
        return .success(())
    }

    /// Places a finished value into the enclosing container (or as the root).
    private mutating func add(_ value: JSON, nodes: Int, mark: YAMLMark, recordMark: Bool = true) -> Result<Void, YAMLError> {
        totalNodes += nodes
        guard totalNodes <= YAML.maximumNodes else {
            return .failure(YAMLError("the document expands to more than \(YAML.maximumNodes) nodes (aliases copy their anchor): refusing a possible alias bomb", at: mark))
        }
        guard let top = stack.popLast() else {
            root = value
            if recordMark { marks[""] = mark }
            return .success(())
        }
        switch top {
        case .sequence(var items, let pointer, let anchor, let n):
            if recordMark { marks[YAMLDocument.pointer(pointer, items.count)] = mark }
            items.append(value)
            stack.append(.sequence(items: items, pointer: pointer, anchor: anchor, nodes: n + nodes))
        case .mapping(var pairs, let pointer, let anchor, let n, let pendingKey, var merges, let explicit):
            guard let (key, keyMark) = pendingKey else { return .success(()) }
            if key == "<<", !explicit.contains("<<") {
                switch value {
                case .object(let o): merges.append(o)
                case .array(let list):
                    for item in list {
                        guard case .object(let o) = item else {
                            return .failure(YAMLError("a merge key (<<) takes a mapping or a list of mappings", at: mark))
                        }
                        merges.append(o)
                    }
                default:
                    return .failure(YAMLError("a merge key (<<) takes a mapping or a list of mappings", at: keyMark))
                }
                keyMarks[YAMLDocument.pointer(pointer, key)] = nil
            } else {
                if recordMark { marks[YAMLDocument.pointer(pointer, key)] = mark }
                pairs.append((key, value))
            }
            stack.append(.mapping(pairs: pairs, pointer: pointer, anchor: anchor, nodes: n + nodes,
                                  pendingKey: nil, merges: merges, explicitKeys: explicit))
        }
        return .success(())
    }
}
