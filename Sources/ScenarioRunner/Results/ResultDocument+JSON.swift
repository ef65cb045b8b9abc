import JSON
import ScenarioLanguage

extension ResultDocument {
    /// The document as `--json` writes it (docs/scenario-results.md).
    public var json: JSON {
        var catalogueFields: [(String, JSON)] = [("spec", .string(catalogue.spec))]
        if let file = catalogue.file { catalogueFields.append(("file", .string(file))) }
        catalogueFields.append(
            (
                "rows",
                .array(
                    catalogue.rows.map {
                        .object([("id", .string($0.id)), ("section", .string($0.section)), ("text", .string($0.text))])
                    }
                )
            )
        )
        return .object([
            ("format", .string(Self.format)),
            ("format_version", .number(Double(Self.formatVersion))),
            ("tool", .string(tool)),
            ("catalogue", .object(catalogueFields)),
            ("runs", .array(runs.map(\.json))),
        ])
    }

    /// Reads a results file: checked against the schema first, so a mistake is named by its
    /// JSON pointer; a newer format version is refused with what to do.
    public static func parse(_ bytes: [UInt8], file: String) throws(ResultFileError) -> ResultDocument {
        let root: JSON
        do {
            root = try JSON.parse(bytes)
        } catch {
            throw ResultFileError("\(file): not JSON: \(error)")
        }
        guard root["format"]?.stringValue == format else {
            throw ResultFileError(
                "\(file): not a lerix-mock results file (its \"format\" is not \"\(format)\"; write one with `lerix-mock scenarios --json FILE`)"
            )
        }
        if let version = root["format_version"]?.intValue, version != formatVersion {
            throw ResultFileError(
                "\(file): format_version \(version), and this lerix-mock reads \(formatVersion): read it with the lerix-mock that wrote it (\(root["tool"]?.stringValue ?? "unknown"))"
            )
        }
        let problems = ResultSchema.schema.problems(in: root, against: "document")
        if !problems.isEmpty {
            throw ResultFileError(
                "\(file): does not match docs/scenario-results.schema.json:\n"
                    + problems.prefix(10).map { "  \($0)" }.joined(separator: "\n")
                    + (problems.count > 10 ? "\n  … and \(problems.count - 10) more" : "")
            )
        }
        let catalogueJSON = root["catalogue"] ?? .null
        let catalogue = SpecCatalogue(
            spec: catalogueJSON["spec"]?.stringValue ?? "",
            rows: (catalogueJSON["rows"]?.arrayValue ?? []).map {
                SpecCatalogue.Row(
                    id: $0["id"]?.stringValue ?? "",
                    section: $0["section"]?.stringValue ?? "",
                    text: $0["text"]?.stringValue ?? ""
                )
            },
            file: catalogueJSON["file"]?.stringValue
        )
        let runs = (root["runs"]?.arrayValue ?? []).map(RunRecord.init(json:))
        return ResultDocument(tool: root["tool"]?.stringValue ?? "", catalogue: catalogue, runs: runs)
    }
}

/// The results schema, compiled in (a symlink to docs/scenario-results.schema.json).
enum ResultSchema {
    static let schema: JSONSchema = {
        // Pinned by a test: should the compiled-in copy not parse, every file is refused, never misread.
        let document = (try? JSON.parse(PackageResources.scenario_results_schema_json)) ?? .object([])
        return JSONSchema(document: document)
    }()
}

extension RunRecord {
    var json: JSON {
        var adapterFields: [(String, JSON)] = [
            ("name", .string(result.adapter.name)), ("version", .string(result.adapter.version)),
        ]
        if let command { adapterFields.append(("command", .string(command))) }
        let r = result
        return .object([
            ("adapter", .object(adapterFields)),
            ("mode", .string(mode.rawValue)),
            ("seed", .number(Double(seed))),
            ("jobs", .number(Double(jobs))),
            ("planned", .number(Double(r.planned))),
            (
                "shards",
                .array(
                    shards.map {
                        .object([("index", .number(Double($0.index))), ("total", .number(Double($0.total)))])
                    }
                )
            ),
            ("rerun", .bool(rerun)),
            ("wall_seconds", .number(ResultJSON.rounded(wallSeconds))),
            (
                "counts",
                .object([
                    ("total", .number(Double(r.outcomes.count))), ("passed", .number(Double(r.passed))),
                    ("failed", .number(Double(r.failed))), ("errors", .number(Double(r.errors))),
                    ("skipped", .number(Double(r.skipped))), ("checks", .number(Double(r.checks))),
                ])
            ),
            ("scenarios", .array(r.outcomes.map(\.json))),
        ])
    }

    /// From JSON the schema accepted.
    init(json: JSON) {
        var result = SuiteResult(
            outcomes: (json["scenarios"]?.arrayValue ?? []).map(ScenarioOutcome.init(json:)),
            adapterName: ""
        )
        result.adapter = AdapterIdentity(
            name: json["adapter"]?["name"]?.stringValue ?? "",
            version: json["adapter"]?["version"]?.stringValue ?? ""
        )
        result.adapterName = result.adapter.display
        result.planned = json["planned"]?.intValue ?? result.outcomes.count
        let shards = (json["shards"]?.arrayValue ?? []).compactMap { s -> Shard? in
            guard let index = s["index"]?.intValue, let total = s["total"]?.intValue else { return nil }
            return Shard(index: index, total: total)
        }
        result.shard = shards.count == 1 ? shards[0] : nil
        self.init(
            mode: Mode(rawValue: json["mode"]?.stringValue ?? "") ?? .inProcess,
            seed: UInt64(max(0, json["seed"]?.numberValue ?? 1)),
            jobs: json["jobs"]?.intValue ?? 1,
            command: json["adapter"]?["command"]?.stringValue,
            shards: shards,
            rerun: json["rerun"]?.boolValue ?? false,
            wallSeconds: json["wall_seconds"]?.numberValue ?? 0,
            result: result
        )
    }
}

enum ResultJSON {
    /// Milliseconds are what a wall time means here; more digits are noise.
    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
    static func strings(_ values: [String]) -> JSON { .array(values.map(JSON.string)) }
    static func strings(_ value: JSON?) -> [String] { (value?.arrayValue ?? []).compactMap(\.stringValue) }
}

extension ScenarioOutcome {
    var json: JSON {
        var fields: [(String, JSON)] = [
            ("position", .number(Double(position))),
            ("name", .string(scenario)),
            ("file", .string(file)),
            ("status", .string(statusName)),
        ]
        if let skipReason {
            fields.append(("skip_reason", .string(skipReason)))
            fields.append(("skipped_for", ResultJSON.strings(skippedFor)))
        }
        fields += [
            ("covers", ResultJSON.strings(covers)),
            ("tags", ResultJSON.strings(tags)),
            ("virtual_ms", .number(Double(max(0, virtualMilliseconds)))),
            ("wall_seconds", .number(ResultJSON.rounded(wallSeconds))),
            ("checks", .number(Double(checks))),
        ]
        if status == .failed || status == .error {
            var failureFields: [(String, JSON)] = [("summary", .string(failureSummary)), ("report", .string(failure))]
            if let failedStep {
                failureFields.append(
                    (
                        "step",
                        .object([
                            ("number", .number(Double(failedStep.number))), ("text", .string(failedStep.text)),
                            ("location", .string(failedStep.location)),
                            ("at_ms", .number(Double(max(0, failedStep.at)))), ("message", .string(failedStep.message)),
                        ])
                    )
                )
            }
            fields.append(("failure", .object(failureFields)))
        }
        fields.append(
            (
                "steps",
                .array(
                    steps.map { step in
                        var s: [(String, JSON)] = [
                            ("text", .string(step.text)), ("location", .string(step.location)),
                            ("status", .string(step.status.rawValue)),
                        ]
                        if let at = step.startedAt { s.append(("started_at_ms", .number(Double(max(0, at))))) }
                        return .object(s)
                    }
                )
            )
        )
        if !log.isEmpty { fields.append(("log", ResultJSON.strings(log))) }
        if let timeline { fields.append(("timeline", timeline.json)) }
        return .object(fields)
    }

    /// From JSON the schema accepted.
    init(json: JSON) {
        let statusName = json["status"]?.stringValue ?? "error"
        let status: Status
        switch statusName {
        case "passed": status = .passed
        case "failed": status = .failed
        case "skipped": status = .skipped(json["skip_reason"]?.stringValue ?? "")
        default: status = .error
        }
        self.init(
            scenario: json["name"]?.stringValue ?? "",
            file: json["file"]?.stringValue ?? "",
            status: status,
            failure: json["failure"]?["report"]?.stringValue ?? "",
            failureSummary: json["failure"]?["summary"]?.stringValue ?? "",
            virtualMilliseconds: Int64(json["virtual_ms"]?.numberValue ?? 0),
            wallSeconds: json["wall_seconds"]?.numberValue ?? 0,
            log: ResultJSON.strings(json["log"]),
            covers: ResultJSON.strings(json["covers"]),
            tags: ResultJSON.strings(json["tags"])
        )
        checks = json["checks"]?.intValue ?? 0
        position = json["position"]?.intValue ?? 0
        skippedFor = ResultJSON.strings(json["skipped_for"])
        steps = (json["steps"]?.arrayValue ?? []).map { step in
            StepRecord(
                text: step["text"]?.stringValue ?? "",
                location: step["location"]?.stringValue ?? "",
                status: StepRecord.Status(rawValue: step["status"]?.stringValue ?? "") ?? .notRun,
                startedAt: step["started_at_ms"]?.numberValue.map { Int64($0) }
            )
        }
        if let step = json["failure"]?["step"], step != .null {
            failedStep = FailedStep(
                number: step["number"]?.intValue ?? 0,
                text: step["text"]?.stringValue ?? "",
                location: step["location"]?.stringValue ?? "",
                at: Int64(step["at_ms"]?.numberValue ?? 0),
                message: step["message"]?.stringValue ?? ""
            )
        }
        timeline = json["timeline"].flatMap(ScenarioTimeline.init(json:))
    }
}
