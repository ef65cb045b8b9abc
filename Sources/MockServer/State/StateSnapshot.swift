import Clock
import JSON
import ReleaseControl

/// Everything the mock holds that outlives a request, in the shape `--config` reads:
/// `{"projects": [{"key", "apns_topic", "fcm_project", "rules", "push_tokens", …}]}`.
/// A seed file uses the first five fields; an export (`GET /admin/state`) adds rule ids,
/// `changes`, `pushes` and `ingest`, and reads back the same way.
///
/// ```swift
/// let seed = try StateSnapshot(json: JSON.parse(#"{"projects": [{"key": "demo"}]}"#))
/// seed.projects[0].key   // "demo"
/// ```
public struct StateSnapshot: Sendable, Equatable {
    public struct Token: Sendable, Equatable {
        public var token: String
        public var platform: Platform
        /// When it was registered; nil for seeded tokens.
        public var registeredAt: Instant?

        public init(token: String, platform: Platform, registeredAt: Instant? = nil) {
            self.token = token
            self.platform = platform
            self.registeredAt = registeredAt
        }

        public var json: JSON {
            var pairs: [(String, JSON)] = [("token", .string(token)), ("platform", .string(platform.rawValue))]
            if let registeredAt { pairs.append(("registered_at", .string(registeredAt.rfc3339))) }
            return .object(pairs)
        }

        /// Appends exactly the bytes of `json.serialized()`, with no JSON value built: a durable
        /// state file writes one per registration.
        public func writeJSON(into out: inout [UInt8]) {
            Self.append(#"{"token":"#, to: &out)
            JSON.writeString(token, into: &out)
            Self.append(Self.platformField(platform), to: &out)
            if let registeredAt {
                // RFC 3339 text needs no escape: its bytes go between the quotes as they are.
                Self.append(#","registered_at":""#, to: &out)
                registeredAt.writeRFC3339(into: &out)
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: "}"))
        }

        /// `,"platform":"ios"` and so on, as one literal: platform names need no escape.
        private static func platformField(_ platform: Platform) -> StaticString {
            switch platform {
            case .ios: #","platform":"ios""#
            case .android: #","platform":"android""#
            case .macos: #","platform":"macos""#
            case .web: #","platform":"web""#
            }
        }

        /// A literal's bytes in one copy (a String's UTF-8 view would be walked index by index).
        private static func append(_ literal: StaticString, to out: inout [UInt8]) {
            out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
    }

    public struct Project: Sendable, Equatable {
        public var key: String
        public var apnsTopic: String?
        public var fcmProject: String?
        /// Rules with their ids (a seed's rules get `r1`, `r2`, … in order).
        public var rules: [Rule]
        /// Release-control changes, oldest first; empty for a seed.
        public var changes: [Change]
        public var pushTokens: [Token]
        public var pushes: [PushRecord]
        /// Items received per module.
        public var ingest: [String: Int]

        public init(
            key: String,
            apnsTopic: String? = nil,
            fcmProject: String? = nil,
            rules: [Rule] = [],
            changes: [Change] = [],
            pushTokens: [Token] = [],
            pushes: [PushRecord] = [],
            ingest: [String: Int] = [:]
        ) {
            self.key = key
            self.apnsTopic = apnsTopic
            self.fcmProject = fcmProject
            self.rules = rules
            self.changes = changes
            self.pushTokens = pushTokens
            self.pushes = pushes
            self.ingest = ingest
        }
    }

    public var projects: [Project]

    public init(projects: [Project]) {
        self.projects = projects
    }

    /// What the mock starts with when no `--config` is given: the project `demo`, no rules.
    public static let defaultSeed = StateSnapshot(projects: [Project(key: defaultProjectKey)])

    /// `demo` (``MockDefaults/projectKey``): the project a server starts with unless told.
    public static let defaultProjectKey = MockDefaults.projectKey

    public var json: JSON {
        .object([
            (
                "projects",
                .array(
                    projects.map { project in
                        var pairs: [(String, JSON)] = [("key", .string(project.key))]
                        pairs.append(("apns_topic", project.apnsTopic.map(JSON.string) ?? .null))
                        pairs.append(("fcm_project", project.fcmProject.map(JSON.string) ?? .null))
                        pairs.append(("rules", .array(project.rules.map(\.json))))
                        pairs.append(("push_tokens", .array(project.pushTokens.map(\.json))))
                        pairs.append(("changes", .array(project.changes.map(\.json))))
                        pairs.append(("pushes", .array(project.pushes.map(\.json))))
                        pairs.append(
                            (
                                "ingest",
                                .object(
                                    project.ingest.sorted { $0.key < $1.key }.map {
                                        ($0.key, .number(Double($0.value)))
                                    }
                                )
                            )
                        )
                        return .object(pairs)
                    }
                )
            )
        ])
    }
}

extension StateSnapshot {
    /// Project keys as URLs and file names can carry them.
    package static func isValidProjectKey(_ key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= 64 else { return false }
        return key.utf8.allSatisfy { b in
            (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || (b >= 48 && b <= 57) || b == 45 || b == 95 || b == 46
        }
    }

    package static let projectKeyRule = "1 to 64 letters, digits, '-', '_' or '.'"
    /// ``isValidProjectKey(_:)`` as a regular expression, for the OpenAPI document.
    static let projectKeyPattern = "^[A-Za-z0-9._-]{1,64}$"
    /// Largest ingest count a snapshot may carry (exact in a JSON number).
    static let maximumIngestCount = 1_000_000_000_000_000

    /// A project as a snapshot holds it: the seed's fields, then what an export adds.
    static let projectFields = BodyFields(
        name: "a project",
        writable: ["key", "apns_topic", "fcm_project", "rules", "push_tokens", "changes", "pushes", "ingest"]
    )
    static let tokenFields = BodyFields(name: "a push token", writable: ["token", "platform", "registered_at"])
    static let changeFields = BodyFields(
        name: "a change",
        writable: ["id", "at", "kind", "action", "rule", "lifted", "blocking"]
    )
    static let pushResultFields = BodyFields(
        name: "a push result",
        writable: ["token", "platform", "result", "reason"]
    )
    /// A push record's keys: what it says, and the counts derived from its results, which may
    /// come back only as the export showed them.
    static func pushFields(of record: PushRecord?) -> BodyFields {
        let derived = ["tokens", "delivered", "failed", "pending", "no_gateway"]
        let written = ["id", "sent_at", "changes", "results"]
        guard let shown = record?.json else { return BodyFields(name: "a push record", writable: written + derived) }
        return BodyFields(name: "a push record", writable: written, shown: derived.map { (key: $0, value: shown[$0]) })
    }

    /// Reads and validates a whole document, collecting every problem (pointers from the root).
    public init(json: JSON) throws(ValidationFailure) {
        var problems: [FieldProblem] = []
        func fail(_ pointer: String, _ message: String, _ kind: FieldProblem.Kind) {
            problems.append(FieldProblem(pointer: pointer, message: message, kind: kind))
        }
        guard let root = json.objectValue else {
            throw ValidationFailure(
                "",
                "expected a JSON object with \"projects\", found \(json.typeName)",
                kind: .wrongType
            )
        }
        problems += BodyFields(name: "a state snapshot", writable: ["projects"]).problems(in: root)
        guard let projectsValue = root["projects"] else {
            throw ValidationFailure(
                problems: problems + [
                    FieldProblem(pointer: "/projects", message: "required: a list of projects", kind: .missingField)
                ]
            )
        }
        guard let items = projectsValue.arrayValue else {
            throw ValidationFailure(
                problems: problems + [
                    FieldProblem(
                        pointer: "/projects",
                        message: "expected an array, found \(projectsValue.typeName)",
                        kind: .wrongType
                    )
                ]
            )
        }
        var projects: [Project] = []
        var seenKeys: Set<String> = []
        for (index, item) in items.enumerated() {
            let base = "/projects/\(index)"
            guard let object = item.objectValue else {
                fail(base, "expected a project object, found \(item.typeName)", .wrongType)
                continue
            }
            problems += Self.projectFields.problems(in: object, at: base)
            var project = Project(key: "")
            switch object["key"] {
            case nil, .null?: fail(base + "/key", "required: the project's key", .missingField)
            case .string(let key)?:
                if !Self.isValidProjectKey(key) {
                    fail(base + "/key", "\"\(key)\" is not a project key: \(Self.projectKeyRule)", .invalidValue)
                } else if !seenKeys.insert(key).inserted {
                    fail(base + "/key", "duplicate project key \"\(key)\"", .invalidValue)
                }
                project.key = key
            case let other?: fail(base + "/key", "expected a string, found \(other.typeName)", .wrongType)
            }
            for (field, path) in [("apns_topic", \Project.apnsTopic), ("fcm_project", \Project.fcmProject)] {
                switch object[field] {
                case nil, .null?: break
                case .string(let text)?:
                    if text.isEmpty {
                        fail(base + "/" + field, "must not be empty (leave it out instead)", .invalidValue)
                    }
                    project[keyPath: path] = text
                case let other?: fail(base + "/" + field, "expected a string, found \(other.typeName)", .wrongType)
                }
            }
            project.rules = Self.readRules(object["rules"], base: base + "/rules", fail: fail)
            project.pushTokens = Self.readTokens(object["push_tokens"], base: base + "/push_tokens", fail: fail)
            switch object["changes"] {
            case nil, .null?: break
            case .array(let changes)?:
                var ids = IncreasingIDs(what: "change")
                for (i, change) in changes.enumerated() {
                    if let fields = change.objectValue {
                        problems += Self.changeFields.problems(in: fields, at: base + "/changes/\(i)")
                    }
                    // Rule ids a change names feed the next rule id: the same bound as a rule's.
                    var named: [(String, JSON?)] = [("/rule", change["rule"])]
                    for (j, lifted) in (change["lifted"]?.arrayValue ?? []).enumerated() {
                        named.append(("/lifted/\(j)", lifted))
                    }
                    var badRuleId = false
                    for case (let pointer, .string(let id)?) in named {
                        guard let problem = Rule.idProblem(id) else { continue }
                        fail(base + "/changes/\(i)" + pointer, "the rule id \(problem)", .invalidValue)
                        badRuleId = true
                    }
                    if let restored = Change.restore(change) {
                        if let problem = ids.problem(restored.id) {
                            fail(base + "/changes/\(i)/id", problem, .invalidValue)
                        }
                        project.changes.append(restored)
                    } else if !badRuleId {
                        fail(
                            base + "/changes/\(i)",
                            "not a change as GET /admin/projects/{project}/changes shows it",
                            .invalidValue
                        )
                    }
                }
            case let other?: fail(base + "/changes", "expected an array, found \(other.typeName)", .wrongType)
            }
            switch object["pushes"] {
            case nil, .null?: break
            case .array(let pushes)?:
                var ids = IncreasingIDs(what: "push")
                for (i, push) in pushes.enumerated() {
                    let at = base + "/pushes/\(i)"
                    for (j, result) in (push["results"]?.arrayValue ?? []).enumerated() {
                        guard let fields = result.objectValue else { continue }
                        problems += Self.pushResultFields.problems(in: fields, at: at + "/results/\(j)")
                    }
                    let record = PushRecord(json: push)
                    if let fields = push.objectValue {
                        problems += Self.pushFields(of: record).problems(in: fields, at: at)
                    }
                    for (j, change) in (push["changes"]?.arrayValue ?? []).enumerated() {
                        if let id = change.intValue, !(1...ListPage.maximumCursor).contains(id) {
                            fail(
                                at + "/changes/\(j)",
                                "change ids are from 1 to \(ListPage.maximumCursor), not \(id)",
                                .invalidValue
                            )
                        }
                    }
                    if let record {
                        if let problem = ids.problem(record.id) { fail(at + "/id", problem, .invalidValue) }
                        project.pushes.append(record)
                    } else {
                        fail(at, "not a push record as GET /admin/projects/{project}/pushes shows it", .invalidValue)
                    }
                }
            case let other?: fail(base + "/pushes", "expected an array, found \(other.typeName)", .wrongType)
            }
            switch object["ingest"] {
            case nil, .null?: break
            case .object(let counts)?:
                let modules = SDKModule.ingestModules.map(\.rawValue)
                for (module, value) in counts {
                    let at = base + "/ingest/" + FieldProblem.escape(module)
                    if !modules.contains(module) {
                        fail(
                            at,
                            "unknown module '\(module)'" + KeySuggestion.hint(for: module, in: modules),
                            .unknownField
                        )
                    } else if let n = value.intValue, n >= 0, n <= Self.maximumIngestCount {
                        project.ingest[module] = n
                    } else if let number = value.numberValue, number.rounded() == number {
                        fail(at, "must be between 0 and \(Self.maximumIngestCount)", .invalidValue)
                    } else {
                        fail(at, "expected a non-negative integer, found \(value.typeName)", .wrongType)
                    }
                }
            case let other?: fail(base + "/ingest", "expected an object, found \(other.typeName)", .wrongType)
            }
            projects.append(project)
        }
        if !problems.isEmpty { throw ValidationFailure(problems: problems) }
        self.init(projects: projects)
    }

    private static func readRules(
        _ value: JSON?,
        base: String,
        fail: (String, String, FieldProblem.Kind) -> Void
    ) -> [Rule] {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else {
            fail(base, "expected an array of rules, found \(value.typeName)", .wrongType)
            return []
        }
        var rules: [Rule] = []
        var usedIds: Set<String> = []
        for item in items {
            if case .string(let id)? = item["id"] { usedIds.insert(id) }
        }
        var next = 1
        for (index, item) in items.enumerated() {
            do {
                switch item["id"] {
                case .string?:
                    rules.append(try Rule.restore(item))
                case let other? where !other.isNull:
                    fail(
                        base + "/\(index)/id",
                        "a rule id must be a string like \"r1\", found \(other.typeName)",
                        .wrongType
                    )
                default:
                    while usedIds.contains("r\(next)") { next += 1 }
                    let id = "r\(next)"
                    usedIds.insert(id)
                    rules.append(try Rule.decode(item, id: id))
                }
            } catch {
                for problem in error.prefixingPointers(with: base + "/\(index)").problems {
                    fail(problem.pointer, problem.message, problem.kind)
                }
            }
        }
        var seen: Set<String> = []
        for (index, rule) in rules.enumerated() where !seen.insert(rule.id).inserted {
            fail(base + "/\(index)/id", "duplicate rule id \"\(rule.id)\"", .invalidValue)
        }
        return rules
    }

    private static func readTokens(
        _ value: JSON?,
        base: String,
        fail: (String, String, FieldProblem.Kind) -> Void
    ) -> [Token] {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else {
            fail(base, "expected an array of {\"token\", \"platform\"}, found \(value.typeName)", .wrongType)
            return []
        }
        var tokens: [Token] = []
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            let at = base + "/\(index)"
            guard let object = item.objectValue else {
                fail(at, "expected {\"token\", \"platform\"}, found \(item.typeName)", .wrongType)
                continue
            }
            for problem in tokenFields.problems(in: object, at: at) {
                fail(problem.pointer, problem.message, problem.kind)
            }
            var token: String?
            var platform: Platform?
            switch object["token"] {
            case nil, .null?: fail(at + "/token", "required", .missingField)
            case .string(let text)?:
                if let problem = PushTokens.problem(token: text) {
                    fail(at + "/token", problem, .invalidValue)
                } else if !seen.insert(text).inserted {
                    fail(at + "/token", "duplicate token", .invalidValue)
                } else {
                    token = text
                }
            case let other?: fail(at + "/token", "expected a string, found \(other.typeName)", .wrongType)
            }
            switch object["platform"] {
            case nil, .null?: fail(at + "/platform", "required: \(Platform.pushListText)", .missingField)
            case .string(let text)?:
                switch PushTokens.platform(text) {
                case .success(let p): platform = p
                case .failure(let message): fail(at + "/platform", message, .invalidValue)
                }
            case let other?: fail(at + "/platform", "expected a string, found \(other.typeName)", .wrongType)
            }
            var registeredAt: Instant?
            switch object["registered_at"] {
            case nil, .null?: break
            case .string(let text)?:
                if let at = Instant(rfc3339: text) {
                    registeredAt = at
                } else {
                    fail(at + "/registered_at", "not an RFC 3339 time", .invalidValue)
                }
            case let other?: fail(at + "/registered_at", "expected a string, found \(other.typeName)", .wrongType)
            }
            if let token, let platform {
                tokens.append(Token(token: token, platform: platform, registeredAt: registeredAt))
            }
        }
        return tokens
    }
}

/// Change and push ids as a store keeps them: positive, unique, and oldest first (a restart
/// reads them back ordered by id, and new ids continue from the highest). An import that broke
/// this would come back different after a restart.
struct IncreasingIDs {
    let what: String
    private var last: Int?

    init(what: String) { self.what = what }

    /// Why `id` cannot follow the ids seen so far, or nil.
    mutating func problem(_ id: Int) -> String? {
        defer { last = max(last ?? id, id) }
        if id < 1 { return "\(what) ids are positive integers, not \(id)" }
        if id > ListPage.maximumCursor { return "\(what) ids are at most \(ListPage.maximumCursor), not \(id)" }
        guard let last else { return nil }
        if id == last { return "duplicate \(what) id \(id)" }
        if id < last { return "\(what) ids must increase, oldest first: \(id) comes after \(last)" }
        return nil
    }
}
