import AdapterProtocol
import Clock
import JSON
import ScenarioLanguage

extension ScenarioExecution {
    /// The failure as a person reads it: which step, when, expected vs seen, and the recent
    /// checks of the devices involved from the server's journal.
    func report(step: Step, index: Int, failure: StepFailure) -> String {
        var lines: [String] = []
        lines.append("  step \(index + 1) at \(step.location): \(step.text)")
        lines.append("  virtual time \(TimeSyntax.relative(now.milliseconds(since: t0))) (\(now.rfc3339))")
        for line in failure.message.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append("  " + line)
        }
        let involved = Array((failure.devices.isEmpty ? step.action.deviceNames : failure.devices).prefix(3))
        for name in involved {
            guard let d = devices[name] else { continue }
            let current = installed[name] ?? (d.appVersion, d.build)
            let who =
                "\(d.platform) \(current.version ?? "no version") build \(current.build ?? "none"), \(d.sdk ?? "no sdk") \(d.sdkVersion ?? "")"
            if let state = try? adapter.command(.state(device: name)), case .object(var o) = state {
                o["ok"] = nil
                o["id"] = nil
                lines.append("  state of \(name) now: \(JSON.object(o).serializedString)")
            }
            guard let entries = try? journal(for: [name]) else {
                lines.append("  (the server's journal could not be read)")
                break
            }
            if entries.isEmpty {
                lines.append("  \(name) (\(who)) made no checks since time 0")
                continue
            }
            lines.append("  recent checks of \(name) (\(who)), oldest first:")
            for entry in entries.prefix(6).reversed() {
                var when = entry["at"]?.stringValue ?? "?"
                if let t = Instant(rfc3339: when) { when = TimeSyntax.relative(t.milliseconds(since: t0)) }
                var line = "    \(when)  \(entry["status"]?.intValue.map(String.init) ?? "?")"
                if let lifetime = entry["lifetime"]?.intValue { line += "  lifetime \(lifetime)" }
                if let etag = entry["etag"]?.stringValue { line += "  etag \(etag)" }
                if let fault = entry["fault"]?.stringValue { line += "  fault \(fault)" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
