import JSON

/// The timeline in a results file, so `report merge --html` draws what the run recorded.
/// Times are milliseconds since the scenario's time 0; pairs are short arrays (`[at, count]`)
/// because a fleet's lanes hold many of them.
extension ScenarioTimeline {
    var json: JSON {
        func n(_ value: Int64) -> JSON { .number(Double(value)) }
        func n(_ value: Int) -> JSON { .number(Double(value)) }
        var fields: [(String, JSON)] = [
            ("duration_ms", n(durationMilliseconds)),
            (
                "lanes",
                .array(
                    lanes.map { lane in
                        .object([
                            ("name", .string(lane.name)), ("summary", .string(lane.summary)),
                            ("device_count", n(lane.deviceCount)),
                            (
                                "screens",
                                .array(
                                    lane.screens.map { screen in
                                        .array([
                                            n(screen.at),
                                            .object(
                                                screen.counts.sorted { $0.key < $1.key }.map { ($0.key, n($0.value)) }
                                            ),
                                        ])
                                    }
                                )
                            ),
                            ("offline", .array(lane.offline.map { .array([n($0.at), n($0.count)]) })),
                            (
                                "checks",
                                .array(
                                    lane.checks.map { check in
                                        var c: [(String, JSON)] = [("at", n(check.at)), ("status", n(check.status))]
                                        if let lifetime = check.lifetime { c.append(("lifetime", n(lifetime))) }
                                        if let etag = check.etag { c.append(("etag", .string(etag))) }
                                        if let fault = check.fault { c.append(("fault", .string(fault))) }
                                        return .object(c)
                                    }
                                )
                            ),
                            (
                                "pushes",
                                .array(
                                    lane.pushes.map { .array([n($0.at), n($0.push), .string($0.outcome.rawValue)]) }
                                )
                            ),
                        ])
                    }
                )
            ),
            ("server_events", .array(serverEvents.map { .array([n($0.at), .string($0.label)]) })),
            ("pushes_sent", .array(pushesSent.map { .array([n($0.at), n($0.id), n($0.tokens)]) })),
        ]
        if let failure {
            fields.append(
                (
                    "failure",
                    .object([
                        ("at", n(failure.at)), ("step", n(failure.step)), ("text", .string(failure.text)),
                        ("location", .string(failure.location)), ("message", .string(failure.message)),
                    ])
                )
            )
        }
        if let sampledPerLane { fields.append(("sampled_per_lane", n(sampledPerLane))) }
        return .object(fields)
    }

    /// Nil when the value is not a timeline this version wrote (the report then shows none).
    init?(json: JSON) {
        guard case .object = json, let duration = json["duration_ms"]?.numberValue else { return nil }
        self.init()
        func ms(_ value: JSON?) -> Int64 { Int64(value?.numberValue ?? 0) }
        func int(_ value: JSON?) -> Int { Int(value?.numberValue ?? 0) }
        durationMilliseconds = Int64(duration)
        lanes = (json["lanes"]?.arrayValue ?? []).map { lane in
            var out = Lane(
                name: lane["name"]?.stringValue ?? "",
                summary: lane["summary"]?.stringValue ?? "",
                deviceCount: int(lane["device_count"])
            )
            out.screens = (lane["screens"]?.arrayValue ?? []).map { pair in
                let counts = pair.arrayValue?.last?.objectValue.map { object in
                    Dictionary(object.map { ($0.key, Int($0.value.numberValue ?? 0)) }, uniquingKeysWith: { a, _ in a })
                }
                return (ms(pair.arrayValue?.first), counts ?? [:])
            }
            out.offline = (lane["offline"]?.arrayValue ?? []).map {
                (ms($0.arrayValue?.first), int($0.arrayValue?.last))
            }
            out.checks = (lane["checks"]?.arrayValue ?? []).map { check in
                Check(
                    at: ms(check["at"]),
                    status: int(check["status"]),
                    lifetime: check["lifetime"]?.intValue,
                    etag: check["etag"]?.stringValue,
                    fault: check["fault"]?.stringValue
                )
            }
            out.pushes = (lane["pushes"]?.arrayValue ?? []).compactMap { triple in
                guard let parts = triple.arrayValue, parts.count == 3,
                    let outcome = PushOutcome(rawValue: parts[2].stringValue ?? "")
                else { return nil }
                return (ms(parts[0]), int(parts[1]), outcome)
            }
            return out
        }
        serverEvents = (json["server_events"]?.arrayValue ?? []).map {
            ServerEvent(at: ms($0.arrayValue?.first), label: $0.arrayValue?.last?.stringValue ?? "")
        }
        pushesSent = (json["pushes_sent"]?.arrayValue ?? []).map { triple in
            let parts = triple.arrayValue ?? []
            return (ms(parts.first), int(parts.count > 1 ? parts[1] : nil), int(parts.count > 2 ? parts[2] : nil))
        }
        if let f = json["failure"], case .object = f {
            failure = Failure(
                at: ms(f["at"]),
                step: int(f["step"]),
                text: f["text"]?.stringValue ?? "",
                location: f["location"]?.stringValue ?? "",
                message: f["message"]?.stringValue ?? ""
            )
        }
        sampledPerLane = json["sampled_per_lane"]?.intValue
    }
}
