/// How reports name a scenario file: relative to the folder the run started in, so a report
/// read on another machine (a CI artifact) shows `Scenarios/x.yaml`, never `/home/ci/…`.
///
/// ```swift
/// DisplayPath.relative("/work/main/Scenarios/a.yaml", from: "/work/main")   // "Scenarios/a.yaml"
/// DisplayPath.relative("/tmp/a.yaml", from: "/work/main")                   // "../../tmp/a.yaml"
/// DisplayPath.relative("Scenarios/a.yaml", from: "/work/main")              // unchanged: already relative
/// ```
enum DisplayPath {
    static func relative(_ path: String, from base: String) -> String {
        guard path.hasPrefix("/"), base.hasPrefix("/") else { return path }
        let target = components(path)
        let origin = components(base)
        var shared = 0
        while shared < target.count, shared < origin.count, target[shared] == origin[shared] { shared += 1 }
        let up = Array(repeating: "..", count: origin.count - shared)
        let rest = up + target[shared...]
        return rest.isEmpty ? "." : rest.joined(separator: "/")
    }

    /// `/a/./b//c/` → [a, b, c]; `..` steps back.
    private static func components(_ path: String) -> [String] {
        var out: [String] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { if !out.isEmpty { out.removeLast() } } else { out.append(String(part)) }
        }
        return out
    }
}
