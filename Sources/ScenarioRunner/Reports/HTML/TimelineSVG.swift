import ScenarioLanguage

/// Draws one ``ScenarioTimeline`` as inline SVG: a server lane (changes, pushes sent), one
/// lane per device or group (screen states as bands, offline stretches, checks, pushes that
/// arrived), a shared time axis, and the failing step as a red line with its label.
enum TimelineSVG {
    static let width = 1160.0
    static let plotLeft = 210.0
    static let plotWidth = 930.0
    static let laneHeight = 30.0
    static let serverHeight = 34.0
    static let axisHeight = 26.0
    /// Checks of a group lane closer than this many pixels are drawn as one mark with counts.
    static let bucketPixels = 6.0

    static func svg(_ timeline: ScenarioTimeline, title: String) -> String {
        let duration = Double(max(timeline.durationMilliseconds, 1000))
        func x(_ ms: Int64) -> Double { plotLeft + min(max(Double(ms), 0), duration) / duration * plotWidth }
        func n(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }
        let height = serverHeight + Double(timeline.lanes.count) * laneHeight + axisHeight + 6
        var out =
            "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
        out +=
            "width=\"100%\" role=\"img\" aria-label=\"\(e(title)): timeline of \(timeline.lanes.count) lanes over \(e(TimeSyntax.relative(timeline.durationMilliseconds)))\">\n"

        // Server lane.
        out += "<g class=\"lane server\"><text class=\"label\" x=\"6\" y=\"20\">server</text>"
        out +=
            "<rect class=\"track\" x=\"\(n(plotLeft))\" y=\"4\" width=\"\(n(plotWidth))\" height=\"\(n(serverHeight - 8))\"/>"
        for push in timeline.pushesSent {
            out +=
                "<rect class=\"push-sent\" x=\"\(n(x(push.at) - 1))\" y=\"4\" width=\"2\" height=\"\(n(serverHeight - 8))\">"
            out +=
                "<title>\(e(TimeSyntax.relative(push.at))) push \(push.id) sent to \(push.tokens) token\(push.tokens == 1 ? "" : "s")</title></rect>"
        }
        for event in timeline.serverEvents {
            let cx = x(event.at)
            let cy = serverHeight / 2
            out +=
                "<path class=\"change\" d=\"M\(n(cx)) \(n(cy - 6))l6 6l-6 6l-6 -6z\"><title>\(e(TimeSyntax.relative(event.at))) \(e(event.label))</title></path>"
        }
        out += "</g>\n"

        // Device and group lanes.
        for (index, lane) in timeline.lanes.enumerated() {
            let top = serverHeight + Double(index) * laneHeight
            out += "<g class=\"lane\" data-lane=\"\(e(lane.name))\">"
            out += "<text class=\"label\" x=\"6\" y=\"\(n(top + 13))\">\(e(clip(lane.name, 28)))</text>"
            out += "<text class=\"sub\" x=\"6\" y=\"\(n(top + 25))\">\(e(clip(lane.summary, 34)))</text>"
            out +=
                "<rect class=\"track\" x=\"\(n(plotLeft))\" y=\"\(n(top + 3))\" width=\"\(n(plotWidth))\" height=\"\(n(laneHeight - 6))\"/>"
            out += screenBands(lane, top: top, duration: timeline.durationMilliseconds, x: x, n: n)
            out += offlineBars(lane, top: top, duration: timeline.durationMilliseconds, x: x, n: n)
            out += checkMarks(lane, top: top, x: x, n: n)
            for push in lane.pushes {
                let px = x(push.at)
                let py = top + 5
                let cls = push.outcome == .received ? "push-received" : "push-missed"
                out +=
                    "<path class=\"\(cls)\" d=\"M\(n(px - 4)) \(n(py))h8l-4 6z\"><title>\(e(TimeSyntax.relative(push.at))) push \(push.push) \(push.outcome.rawValue)</title></path>"
            }
            out += "</g>\n"
        }

        // Axis.
        let axisTop = serverHeight + Double(timeline.lanes.count) * laneHeight + 4
        out +=
            "<g class=\"axis\"><line x1=\"\(n(plotLeft))\" x2=\"\(n(plotLeft + plotWidth))\" y1=\"\(n(axisTop))\" y2=\"\(n(axisTop))\"/>"
        let step = tickStep(for: Int64(duration))
        var tick: Int64 = 0
        while Double(tick) <= duration {
            let tx = x(tick)
            out += "<line x1=\"\(n(tx))\" x2=\"\(n(tx))\" y1=\"\(n(axisTop))\" y2=\"\(n(axisTop + 4))\"/>"
            let anchor = tx > width - 50 ? "end" : "middle"
            out +=
                "<text x=\"\(n(tx))\" y=\"\(n(axisTop + 16))\" text-anchor=\"\(anchor)\">\(e(TimeSyntax.relative(tick)))</text>"
            tick += step
        }
        out += "</g>\n"

        if let failure = timeline.failure {
            let fx = x(failure.at)
            out += "<g class=\"failure\"><line x1=\"\(n(fx))\" x2=\"\(n(fx))\" y1=\"0\" y2=\"\(n(axisTop))\"/>"
            let anchor = fx > plotLeft + plotWidth - 120 ? "end" : "start"
            out +=
                "<text x=\"\(n(fx + (anchor == "end" ? -4 : 4)))\" y=\"11\" text-anchor=\"\(anchor)\">✘ step \(failure.step) at \(e(TimeSyntax.relative(failure.at)))</text>"
            out += "<title>step \(failure.step) failed: \(e(failure.message))</title></g>\n"
        }
        out += "</svg>"
        return out
    }

    /// Screen states between samples; a group's band is stacked by how many devices showed each.
    static func screenBands(
        _ lane: ScenarioTimeline.Lane,
        top: Double,
        duration: Int64,
        x: (Int64) -> Double,
        n: (Double) -> String
    ) -> String {
        var out = ""
        let order = ["required_update", "maintenance", "optional_update", "none", "unknown"]
        for (i, sample) in lane.screens.enumerated() {
            let end = i + 1 < lane.screens.count ? lane.screens[i + 1].at : duration
            let x0 = x(sample.at)
            let x1 = x(end)
            guard x1 > x0 else { continue }
            let total = Double(sample.counts.values.reduce(0, +))
            guard total > 0 else { continue }
            var y = top + 3
            let bandHeight = laneHeight - 6
            let keys = sample.counts.keys.sorted {
                (order.firstIndex(of: $0) ?? 9, $0) < (order.firstIndex(of: $1) ?? 9, $1)
            }
            for key in keys {
                guard let count = sample.counts[key], count > 0 else { continue }
                let h = bandHeight * Double(count) / total
                let what =
                    lane.deviceCount > 1
                    ? "\(count) of \(Int(total)) sampled: \(key.replacingUnderscores)" : key.replacingUnderscores
                out +=
                    "<rect class=\"state state-\(e(key))\" x=\"\(n(x0))\" y=\"\(n(y))\" width=\"\(n(x1 - x0))\" height=\"\(n(h))\">"
                out += "<title>from \(e(TimeSyntax.relative(sample.at))): \(e(what))</title></rect>"
                y += h
            }
        }
        return out
    }

    static func offlineBars(
        _ lane: ScenarioTimeline.Lane,
        top: Double,
        duration: Int64,
        x: (Int64) -> Double,
        n: (Double) -> String
    ) -> String {
        var out = ""
        for (i, change) in lane.offline.enumerated() where change.count > 0 {
            let end = i + 1 < lane.offline.count ? lane.offline[i + 1].at : duration
            let x0 = x(change.at)
            let x1 = max(x(end), x0 + 2)
            let who = lane.deviceCount > 1 ? "\(change.count) of \(lane.deviceCount) offline" : "offline"
            out +=
                "<rect class=\"offline\" x=\"\(n(x0))\" y=\"\(n(top + laneHeight - 9))\" width=\"\(n(x1 - x0))\" height=\"5\">"
            out += "<title>\(e(TimeSyntax.relative(change.at)))–\(e(TimeSyntax.relative(end))): \(who)</title></rect>"
        }
        return out
    }

    /// One mark per check, or per few pixels of checks on a busy lane, with its counts.
    static func checkMarks(
        _ lane: ScenarioTimeline.Lane,
        top: Double,
        x: (Int64) -> Double,
        n: (Double) -> String
    ) -> String {
        var out = ""
        let cy = top + laneHeight / 2
        var buckets: [Int: [ScenarioTimeline.Check]] = [:]
        let bucketed = lane.checks.count > 200 || lane.deviceCount > 1
        for check in lane.checks {
            if bucketed {
                buckets[Int(x(check.at) / bucketPixels), default: []].append(check)
            } else {
                out +=
                    "<circle class=\"check \(statusClass(check.status))\" cx=\"\(n(x(check.at)))\" cy=\"\(n(cy))\" r=\"3.5\">"
                out +=
                    "<title>\(e(TimeSyntax.relative(check.at))) \(check.status == 0 ? "reset" : String(check.status))"
                if let lifetime = check.lifetime { out += " lifetime \(lifetime)s" }
                if let etag = check.etag { out += " ETag \(e(etag))" }
                if let fault = check.fault { out += " fault \(e(fault))" }
                out += "</title></circle>"
            }
        }
        for key in buckets.keys.sorted() {
            guard let checks = buckets[key], let first = checks.first else { continue }
            let ok = checks.filter { $0.status == 200 }.count
            let nm = checks.filter { $0.status == 304 }.count
            let errors = checks.count - ok - nm
            let worst = errors > 0 ? "serr" : (ok > 0 ? "s200" : "s304")
            let r = min(3 + Double(checks.count).squareRoot() / 2, 9)
            out +=
                "<circle class=\"check \(worst)\" cx=\"\(n((Double(key) + 0.5) * bucketPixels))\" cy=\"\(n(cy))\" r=\"\(n(r))\">"
            out +=
                "<title>\(e(TimeSyntax.relative(first.at))): \(checks.count) check\(checks.count == 1 ? "" : "s") (\(ok)×200, \(nm)×304, \(errors) errors)</title></circle>"
        }
        return out
    }

    static func statusClass(_ status: Int) -> String {
        status == 200 ? "s200" : (status == 304 ? "s304" : "serr")
    }

    /// Ticks at a round interval, about eight of them.
    static func tickStep(for duration: Int64) -> Int64 {
        let steps: [Int64] = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 172_800, 604_800].map {
            $0 * 1000
        }
        return steps.first { duration / $0 <= 8 } ?? steps[steps.count - 1]
    }

    static func clip(_ text: String, _ count: Int) -> String {
        text.count <= count ? text : String(text.prefix(count - 1)) + "…"
    }

    static func e(_ text: String) -> String { SafeText.xml(text) }
}
