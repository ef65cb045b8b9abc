import Clock
import JSON
import MockServer
import TestSupport
import Testing

@testable import Persistence

/// What `PUT /admin/state` accepts is exactly what a restart reads back (issue 12, point 5:
/// duplicate change ids were accepted and one vanished on restart; push ids `[5, 1]` were
/// accepted and the next push reused an id). A property over generated snapshots, some broken
/// on purpose: an accepted import must export the same before and after a `--state` restart,
/// also after the same writes on both sides (so new ids continue alike); a refused one changes
/// nothing.
@Suite struct SnapshotPropertyTests {
    /// Generates snapshots as an export writes them, with a few ways to be wrong.
    struct Generator {
        var random: SeededRandom
        let start = ServerOnFile.start

        func time(_ seconds: Int) -> JSON { .string(start.adding(seconds: Int64(seconds)).rfc3339) }

        /// Increasing ids with gaps; sometimes (when `breakable`) a duplicate or a step back.
        mutating func ids(_ count: Int) -> [Int] {
            var ids: [Int] = []
            var next = random.int(1...3)
            for _ in 0..<count {
                ids.append(next)
                next += random.int(1...4)
            }
            if ids.count >= 2, random.chance(12) {
                let i = random.int(1...(ids.count - 1))
                ids[i] = random.chance(50) ? ids[i - 1] : ids[i - 1] - random.int(0...1)
            }
            if ids.count >= 2, random.chance(6) { ids.swapAt(0, ids.count - 1) }
            return ids
        }

        mutating func rule(id: String) -> JSON {
            var pairs: [(String, JSON)] = [("id", .string(id))]
            switch random.int(0...3) {
            case 0:
                pairs += [("type", "required_update"), ("below", .string("2.\(random.int(0...9)).0"))]
                if random.chance(50) { pairs.append(("platforms", ["ios", "android"])) }
            case 1:
                pairs += [
                    ("type", "optional_update"), ("below", .string("3.\(random.int(0...9))")),
                    ("store_url", "https://example.com/app"),
                ]
            case 2:
                let from = random.int(-3600...86_400)
                pairs += [
                    ("type", "maintenance"), ("starts_at", time(from)),
                    ("ends_at", time(from + random.int(60...86_400))),
                    ("message", random.chance(50) ? "back soon" : nil),
                ]
            default:
                pairs += [
                    ("type", "sdk_switch"), ("modules", ["analytics", "tracing"]),
                    ("ends_at", time(random.int(60...86_400))),
                ]
            }
            return .object(pairs)
        }

        mutating func project(_ index: Int) -> JSON {
            var pairs: [(String, JSON)] = [("key", .string("p\(index)"))]
            if random.chance(50) { pairs.append(("apns_topic", JSON.string("dev.lerix.p\(index)"))) }
            if random.chance(50) { pairs.append(("fcm_project", .string("fcm-\(index)"))) }

            var ruleIds = (0..<random.int(0...4)).map { _ in "r\(random.int(1...40))" }
            if random.chance(20) { ruleIds.append("custom-\(random.int(1...3))") }
            if random.chance(70) { ruleIds = Array(Set(ruleIds)).sorted() }  // else duplicates may stay
            pairs.append(("rules", .array(ruleIds.map { rule(id: $0) })))

            let platforms = ["ios", "android", "macos"]
            var tokens: [(String, String)] = []
            for i in 0..<random.int(0...5) { tokens.append(("tok-\(index)-\(i)", random.pick(platforms))) }
            if tokens.count >= 2, random.chance(8) { tokens[1].0 = tokens[0].0 }
            pairs.append(
                (
                    "push_tokens",
                    .array(
                        tokens.map { token, platform in
                            var t: [(String, JSON)] = [("token", .string(token)), ("platform", .string(platform))]
                            if random.chance(50) { t.append(("registered_at", time(random.int(-86_400...0)))) }
                            return .object(t)
                        }
                    )
                )
            )

            let changeIds = ids(random.int(0...5))
            pairs.append(
                (
                    "changes",
                    .array(
                        changeIds.enumerated().map { i, id in
                            let kind = random.pick(["created", "updated", "deleted", "lifted_all"])
                            var c: [(String, JSON)] = [
                                ("id", .number(Double(id))), ("at", time(-3600 + i * 60)), ("kind", .string(kind)),
                                ("action", .string("\(kind) something")),
                                ("rule", kind == "lifted_all" ? nil : .string(ruleIds.first ?? "r1")),
                            ]
                            if kind == "lifted_all" { c.append(("lifted", .array(ruleIds.prefix(2).map(JSON.string)))) }
                            c.append(("blocking", .bool(random.chance(50))))
                            return .object(c)
                        }
                    )
                )
            )

            let pushIds = ids(random.int(0...3))
            pairs.append(
                (
                    "pushes",
                    .array(
                        pushIds.enumerated().map { i, id in
                            let results: [JSON] = tokens.map { token, platform in
                                var r: [(String, JSON)] = [("token", .string(token)), ("platform", .string(platform))]
                                switch random.int(0...4) {
                                case 0: r.append(("result", "pending"))
                                case 1: r.append(("result", "delivered"))
                                case 2: r += [("result", "failed"), ("reason", "503 ServiceUnavailable")]
                                case 3: r += [("result", "unregistered"), ("reason", "410 Unregistered")]
                                default: r.append(("result", "no_gateway"))
                                }
                                return .object(r)
                            }
                            return .object([
                                ("id", .number(Double(id))), ("sent_at", time(-3000 + i * 120)),
                                ("changes", .array(changeIds.prefix(2).map { .number(Double($0)) })),
                                ("results", .array(results)),
                            ])
                        }
                    )
                )
            )

            var ingest: [(String, JSON)] = []
            for module in ["errors", "analytics", "tracing", "feedback", "surveys"] where random.chance(40) {
                ingest.append((module, .number(Double(random.int(0...500)))))
            }
            pairs.append(("ingest", .object(ingest)))
            return .object(pairs)
        }

        mutating func snapshot() -> JSON {
            .object([("projects", .array((0..<random.int(1...3)).map { project($0) }))])
        }
    }

    /// The same writes on both sides of the comparison: a blocking rule (a change and a push),
    /// a token, an ingest call, in the first project.
    static func write(_ server: ServerOnFile, project: String) -> [Int] {
        [
            server.call("POST", "/admin/projects/\(project)/rules", #"{"type": "required_update", "below": "9.0.0"}"#)
                .status,
            server.call("PUT", "/v1/projects/\(project)/push-tokens/after-restart", #"{"platform": "android"}"#).status,
            server.call("POST", "/v1/projects/\(project)/ingest/errors", "[1, 2]").status,
            server.call("POST", "/admin/projects/\(project)/lift-all").status,
        ]
    }

    @Test func anAcceptedImportIsWhatARestartReadsBack() throws {
        var generator = Generator(random: SeededRandom(seed: 0x5EED_0012))
        var accepted = 0
        var refused = 0
        for round in 0..<40 {
            let dir = try TemporaryDirectory()
            let path = dir.file("state.db")
            let snapshot = generator.snapshot()
            let first = try ServerOnFile(path: path)
            let before = first.exported
            let answer = first.call("PUT", "/admin/state", snapshot.serializedString)
            guard answer.status == 200 else {
                refused += 1
                #expect(answer.status == 422 || answer.status == 400, "round \(round): \(answer.text)")
                #expect(first.exported == before, "round \(round): a refused import changed the state")
                first.close()
                continue
            }
            accepted += 1
            let imported = first.exported
            #expect(answer.json == imported, "round \(round): the import's answer is the export")
            first.close()

            let restarted = try ServerOnFile(path: path)
            #expect(restarted.exported == imported, "round \(round): \(snapshot.serializedString)")

            // New ids continue from the highest on both sides alike.
            let again = try ServerOnFile(path: dir.file("again.db"))
            #expect(again.call("PUT", "/admin/state", snapshot.serializedString).status == 200)
            let project = imported?["projects"]?.arrayValue?.first?["key"]?.stringValue ?? "p0"
            let statuses = Self.write(again, project: project)
            #expect(statuses == [201, 204, 202, 200], "round \(round)")
            #expect(Self.write(restarted, project: project) == statuses)
            #expect(restarted.exported == again.exported, "round \(round): \(snapshot.serializedString)")
            restarted.close()
            again.close()
        }
        // The generator must exercise both sides of the property.
        #expect(accepted >= 15)
        #expect(refused >= 10)
    }

    @Test func duplicateOrDescendingChangeAndPushIdsAreRefusedWithPointers() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("state.db"))
        defer { server.close() }
        func change(_ id: Int) -> String {
            #"{"id": \#(id), "at": "2026-12-02T10:00:00.000Z", "kind": "created", "action": "created", "rule": "r1", "blocking": false}"#
        }
        func push(_ id: Int) -> String {
            #"{"id": \#(id), "sent_at": "2026-12-02T10:00:00.000Z", "changes": [], "results": []}"#
        }
        let body =
            #"{"projects": [{"key": "demo", "changes": [\#(change(3)), \#(change(3)), \#(change(1))], "pushes": [\#(push(5)), \#(push(1)), \#(push(0))]}]}"#
        let answer = server.call("PUT", "/admin/state", body)
        #expect(answer.status == 422)
        let errors = answer.json?["errors"]?.arrayValue ?? []
        let byPointer = Dictionary(
            errors.compactMap { e in e["pointer"]?.stringValue.map { ($0, e["message"]?.stringValue ?? "") } },
            uniquingKeysWith: { a, _ in a }
        )
        #expect(byPointer["/projects/0/changes/1/id"] == "duplicate change id 3")
        #expect(byPointer["/projects/0/changes/2/id"] == "change ids must increase, oldest first: 1 comes after 3")
        #expect(byPointer["/projects/0/pushes/1/id"] == "push ids must increase, oldest first: 1 comes after 5")
        #expect(byPointer["/projects/0/pushes/2/id"] == "push ids are positive integers, not 0")
    }

    /// The document's bounds are the server's: an id or a push's change id past them is refused,
    /// so what the import takes always validates against the export's schema.
    @Test func idsPastTheDocumentedMaximumAreRefused() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerOnFile(path: dir.file("state.db"))
        defer { server.close() }
        let body =
            #"{"projects": [{"key": "demo", "pushes": [{"id": 1000000000000001, "sent_at": "2026-12-02T10:00:00.000Z", "changes": [0, 1000000000000001], "results": []}]}]}"#
        let answer = server.call("PUT", "/admin/state", body)
        #expect(answer.status == 422)
        let pointers = Set((answer.json?["errors"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue })
        #expect(
            pointers == [
                "/projects/0/pushes/0/id", "/projects/0/pushes/0/changes/0", "/projects/0/pushes/0/changes/1",
            ],
            "\(pointers)"
        )
    }
}
