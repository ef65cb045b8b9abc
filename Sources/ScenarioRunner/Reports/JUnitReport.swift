import ScenarioLanguage

/// JUnit XML for CI dashboards: one `<testsuite>`, one `<testcase>` per scenario, with the
/// failure report as the failure's text and skips with their reason. A file that does not
/// parse, or a scenario that could not be set up, is an `<error>`: no verdict was reached.
public enum JUnitReport {
    public static func xml(_ result: SuiteResult, suiteName: String = "lerix-mock scenarios") -> String {
        let total = result.outcomes.reduce(0) { $0 + $1.wallSeconds }
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out +=
            "<testsuites tests=\"\(result.outcomes.count)\" failures=\"\(result.failed)\" errors=\"\(result.errors)\" skipped=\"\(result.skipped)\" time=\"\(seconds(total))\">\n"
        out += testsuite(result, name: suiteName)
        out += "</testsuites>\n"
        return out
    }

    /// One `<testsuite>` element (a run of one adapter).
    static func testsuite(_ result: SuiteResult, name suiteName: String) -> String {
        let total = result.outcomes.reduce(0) { $0 + $1.wallSeconds }
        var out =
            "  <testsuite name=\"\(escape(suiteName))\" tests=\"\(result.outcomes.count)\" failures=\"\(result.failed)\" errors=\"\(result.errors)\" skipped=\"\(result.skipped)\" time=\"\(seconds(total))\">\n"
        // Which runner wrote it, so a report read later says what produced its verdicts.
        out += "    <properties><property name=\"lerix-mock\" value=\"\(escape(Release.version))\"/>"
        if !result.adapterName.isEmpty {
            out += "<property name=\"adapter\" value=\"\(escape(result.adapterName))\"/>"
        }
        out += "</properties>\n"
        for o in result.outcomes {
            out +=
                "    <testcase classname=\"\(escape(o.file))\" name=\"\(escape(o.scenario))\" time=\"\(seconds(o.wallSeconds))\""
            switch o.status {
            case .passed:
                out += "/>\n"
            case .skipped(let why):
                out += ">\n      <skipped message=\"\(escape(why))\"/>\n    </testcase>\n"
            case .failed:
                out +=
                    ">\n      <failure message=\"\(escape(o.failureSummary))\" type=\"ScenarioFailure\">\(escape(o.failure))</failure>\n    </testcase>\n"
            case .error:
                out +=
                    ">\n      <error message=\"\(escape(o.failureSummary))\" type=\"ScenarioError\">\(escape(o.failure))</error>\n    </testcase>\n"
            }
        }
        out += "  </testsuite>\n"
        return out
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return "\(ms / 1000).\(String(String(ms % 1000 + 1000).dropFirst()))"
    }

    static func escape(_ text: String) -> String { SafeText.xml(text) }
}
