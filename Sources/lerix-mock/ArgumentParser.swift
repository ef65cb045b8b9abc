/// Parses `--name value`, `--name=value`, boolean `--flag`s and positional arguments
/// against a declared set of options, so every subcommand reports mistakes the same way.
///
/// ```swift
/// var parser = ArgumentParser(valued: ["--port", "--host"], flags: ["--quiet"])
/// let parsed = try parser.parse(["--port", "0", "--quiet"])
/// parsed.value("--port")   // "0"
/// parsed.flag("--quiet")   // true
/// ```
struct ArgumentParser {
    let valued: Set<String>
    let flags: Set<String>
    /// Options that may be given more than once (each value kept, in order).
    let repeatable: Set<String>

    init(valued: Set<String>, flags: Set<String> = [], repeatable: Set<String> = []) {
        self.valued = valued
        self.flags = flags
        self.repeatable = repeatable
    }

    struct Parsed {
        var values: [String: [String]] = [:]
        var setFlags: Set<String> = []
        var positional: [String] = []

        func value(_ name: String) -> String? { values[name]?.last }
        func allValues(_ name: String) -> [String] { values[name] ?? [] }
        func flag(_ name: String) -> Bool { setFlags.contains(name) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func parse(_ arguments: [String]) throws(Failure) -> Parsed {
        var parsed = Parsed()
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                parsed.positional.append(argument)
                continue
            }
            if argument == "--" { onlyPositional = true; continue }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if flags.contains(name) {
                guard inlineValue == nil else { throw Failure(description: "\(name) takes no value") }
                parsed.setFlags.insert(name)
            } else if valued.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw Failure(description: "\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                if parsed.values[name] != nil && !repeatable.contains(name) {
                    throw Failure(description: "\(name) given twice")
                }
                parsed.values[name, default: []].append(value)
            } else {
                var message = "unknown option \(name)"
                if let suggestion = Self.closest(to: name, in: valued.union(flags)) {
                    message += " (did you mean \(suggestion)?)"
                }
                throw Failure(description: message)
            }
        }
        return parsed
    }

    /// The known name nearest to `name` by edit distance, when it is near enough to be a typo.
    static func closest(to name: String, in candidates: Set<String>) -> String? {
        let scored = candidates.map { ($0, editDistance(Array(name), Array($0))) }
        guard let best = scored.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }), best.1 <= max(2, name.count / 3) else {
            return nil
        }
        return best.0
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, cb) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
