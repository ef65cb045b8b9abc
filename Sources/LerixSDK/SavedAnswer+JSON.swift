internal import Clock
package import JSON

extension SavedAnswer {
    /// The file format the storage keeps (versioned, so a later SDK can migrate it).
    package var json: JSON {
        var queueObject = JSONObject()
        for module in LerixModule.allCases {
            if let items = queue[module], !items.isEmpty { queueObject[module.rawValue] = .array(items) }
        }
        func time(_ t: Instant?) -> JSON { t.map { .string($0.rfc3339) } ?? .null }
        func text(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }
        return .object([
            ("format", 1),
            ("required_update", requiredUpdate?.json ?? .null),
            ("optional_update", optionalUpdate?.json ?? .null),
            ("maintenance", .array(maintenance.map(\.json))),
            ("sdk_switch", .array(sdkSwitches.map(\.json))),
            ("etag", text(etag)),
            ("lifetime", .number(Double(lifetime))),
            ("server_offset_ms", .number(Double(serverOffsetMilliseconds))),
            ("received_at", time(receivedAt)),
            ("last_success", time(lastSuccess)),
            ("app_version", text(appVersion)),
            ("build", text(build)),
            ("skipped_rules", .array(skippedRules.map(JSON.string))),
            ("queue", .object(queueObject)),
        ])
    }

    /// Reads a saved file part by part, like an answer: a damaged part is lost, never the rest.
    package init(json: JSON) {
        self.init()
        guard let object = json.objectValue else { return }
        let answer = CheckAnswer(object: object)
        requiredUpdate = answer.requiredUpdate.value ?? nil
        optionalUpdate = answer.optionalUpdate.value ?? nil
        maintenance = answer.maintenance.value ?? []
        sdkSwitches = answer.sdkSwitches.value ?? []
        etag = object["etag"]?.stringValue
        if let seconds = object["lifetime"]?.intValue, seconds > 0 { lifetime = seconds }
        if let offset = object["server_offset_ms"]?.numberValue, abs(offset) < 1e15 {
            serverOffsetMilliseconds = Int64(offset)
        }
        receivedAt = object["received_at"]?.stringValue.flatMap { Instant(rfc3339: $0) }
        lastSuccess = object["last_success"]?.stringValue.flatMap { Instant(rfc3339: $0) }
        appVersion = object["app_version"]?.stringValue
        build = object["build"]?.stringValue
        skippedRules = object["skipped_rules"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let queueObject = object["queue"]?.objectValue {
            for (name, items) in queueObject {
                if let module = LerixModule(rawValue: name), let list = items.arrayValue { queue[module] = list }
            }
        }
    }

    /// Bytes for ``Storage``: exactly ``json``'s serialized text, written field by field (the SDK
    /// saves after every answer; building the 14-key value first cost more than the writing).
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(384)
        /// Punctuation and a key, spelled as the serializer spells them.
        func raw(_ text: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        func text(_ s: String?) {
            if let s { JSON.writeString(s, into: &out) } else { raw("null") }
        }
        /// An integer as ``json``'s Double writes it: digits, unless beyond where the serializer
        /// writes a Double as an integer.
        func number(_ n: Int64) {
            if n.magnitude < 1_000_000_000_000_000 {
                JSON.writeInteger(n, into: &out)
            } else {
                JSON.number(Double(n)).write(into: &out)
            }
        }
        raw(#"{"format":1,"required_update":"#)
        (requiredUpdate?.json ?? .null).write(into: &out)
        raw(#","optional_update":"#)
        (optionalUpdate?.json ?? .null).write(into: &out)
        raw(#","maintenance":"#)
        JSON.array(maintenance.map(\.json)).write(into: &out)
        raw(#","sdk_switch":"#)
        JSON.array(sdkSwitches.map(\.json)).write(into: &out)
        raw(#","etag":"#)
        text(etag)
        raw(#","lifetime":"#)
        number(Int64(lifetime))
        raw(#","server_offset_ms":"#)
        number(serverOffsetMilliseconds)
        /// A time as ``json`` writes it (RFC 3339 needs no escape), without making its String.
        func time(_ t: Instant?) {
            guard let t else { return raw("null") }
            out.append(UInt8(ascii: "\""))
            t.writeRFC3339(into: &out)
            out.append(UInt8(ascii: "\""))
        }
        raw(#","received_at":"#)
        time(receivedAt)
        raw(#","last_success":"#)
        time(lastSuccess)
        raw(#","app_version":"#)
        text(appVersion)
        raw(#","build":"#)
        text(build)
        raw(#","skipped_rules":"#)
        JSON.array(skippedRules.map(JSON.string)).write(into: &out)
        raw(#","queue":{"#)
        var firstModule = true
        for module in LerixModule.allCases {
            guard let items = queue[module], !items.isEmpty else { continue }
            if !firstModule { raw(",") }
            firstModule = false
            JSON.writeString(module.rawValue, into: &out)
            raw(":")
            JSON.array(items).write(into: &out)
        }
        raw("}}")
        return out
    }

    /// Reads bytes from ``Storage``; unreadable bytes give an empty saved answer.
    package init(encoded bytes: [UInt8]) {
        self.init(json: (try? JSON.parse(bytes)) ?? .null)
    }
}
