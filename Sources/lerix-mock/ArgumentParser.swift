import JSON

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
    /// Options whose value, a whole number, may be left out (`--shuffle`, `--shuffle 42`,
    /// `--shuffle=42`): the next argument is their value only when it is all digits.
    let optionallyNumeric: Set<String>

    init(
        valued: Set<String>,
        flags: Set<String> = [],
        repeatable: Set<String> = [],
        optionallyNumeric: Set<String> = []
    ) {
        self.valued = valued
        self.flags = flags
        self.repeatable = repeatable
        self.optionallyNumeric = optionallyNumeric
    }

    struct Parsed {
        var values: [String: [String]] = [:]
        var setFlags: Set<String> = []
        var positional: [String] = []

        func value(_ name: String) -> String? { values[name]?.last }
        func allValues(_ name: String) -> [String] { values[name] ?? [] }
        func flag(_ name: String) -> Bool { setFlags.contains(name) }

        /// `name`'s value as a budget of real time: seconds above 0 and at most an hour (the
        /// adapter's answer and exit budgets); nil when the option is absent.
        func budgetSeconds(_ name: String) throws(Failure) -> Double? {
            guard let text = value(name) else { return nil }
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3_600 else {
                throw Failure(description: "\(name) takes seconds above 0 and at most 3600, not '\(text)'")
            }
            return seconds
        }
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
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = argument
            var inlineValue: String? = nil
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if optionallyNumeric.contains(name) {
                if parsed.setFlags.contains(name) { throw Failure(description: "\(name) given twice") }
                parsed.setFlags.insert(name)
                if let inlineValue {
                    parsed.values[name] = [inlineValue]
                } else if index < arguments.count, !arguments[index].isEmpty,
                    arguments[index].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
                {
                    parsed.values[name] = [arguments[index]]
                    index += 1
                }
            } else if flags.contains(name) {
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
                if let suggestion = KeySuggestion.nearest(to: name, in: valued.union(flags).union(optionallyNumeric)) {
                    message += " (did you mean \(suggestion)?)"
                }
                throw Failure(description: message)
            }
        }
        return parsed
    }
}

extension ArgumentParser.Parsed {
    /// Every `--allow-host NAME` (serve and push-gateway): bare host names, no port.
    func allowedHosts() throws(ArgumentParser.Failure) -> [String] {
        try allValues("--allow-host").map { name throws(ArgumentParser.Failure) in
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                throw ArgumentParser.Failure(
                    description: "--allow-host takes a host name without port (like lerix-mock), not '\(name)'"
                )
            }
            return name
        }
    }
}
