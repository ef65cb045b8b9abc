import POSIX
import ScenarioRunner

/// One subcommand of `lerix-mock`. `run` returns the process exit status; it prints its own errors.
protocol CLICommand {
    static var name: String { get }
    /// One line for `lerix-mock help`.
    static var summary: String { get }
    /// Full usage text for `lerix-mock NAME --help`.
    static var usage: String { get }
    static func run(_ arguments: [String]) -> Int32
}

enum CLI {
    static func run(_ arguments: [String], commands: [any CLICommand.Type]) -> Int32 {
        guard let first = arguments.first, first != "help", first != "--help", first != "-h" else {
            printOut(overview(commands))
            return arguments.isEmpty ? 2 : 0
        }
        if first == "--version" || first == "version" {
            guard arguments.count == 1 else {
                printError("lerix-mock: \(first) takes no arguments")
                return 2
            }
            printOut(Version.line)
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            printError("lerix-mock: unknown command '\(first)'\n\n" + overview(commands))
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            printOut(command.usage)
            return 0
        }
        return command.run(rest)
    }

    static func overview(_ commands: [any CLICommand.Type]) -> String {
        var text = "usage: lerix-mock COMMAND [OPTIONS]\n\ncommands:\n"
        let width = (commands.map { $0.name.count }.max() ?? 0) + 2
        for command in commands {
            text +=
                "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.summary + "\n"
        }
        text += "\n`lerix-mock COMMAND --help` shows a command's options; `lerix-mock --version` the release.\n"
        return text
    }

    /// Everything the CLI shows a person goes through ``SafeText/terminal(_:)``: scenario names,
    /// device fields and adapter output never send ESC, BEL or CR to the terminal raw.
    static func printOut(_ text: String) { writeAll(1, SafeText.terminal(text)) }

    static func printError(_ text: String) { writeAll(2, SafeText.terminal(text)) }

    /// A line of a protocol (an adapter's answer, the JSON Schema) exactly as it is: JSON
    /// already escapes every control character, and a program reads it, not a person.
    static func printData(_ text: String) { writeAll(1, text) }

    /// Unbuffered, so lines reach pipes (tests, `make serve | tee`) at once; `FILE*` globals are not Sendable.
    static func writeAll(_ fd: Int32, _ text: String) {
        Posix.writeAll(fd, Array((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
