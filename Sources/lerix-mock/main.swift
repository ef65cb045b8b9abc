// lerix-mock: one binary, several subcommands. Each subcommand lives in its own
// `<Name>Command.swift` and is listed here; this file only dispatches.
import POSIX

let commands: [any CLICommand.Type] = [
    ServeCommand.self,
    ScenariosCommand.self,
    ExploreCommand.self,
    AdapterCommand.self,
    AdapterCheckCommand.self,
    PushGatewayCommand.self,
    DevCertCommand.self,
    ReportCommand.self,
]

let arguments = Array(CommandLine.arguments.dropFirst())
Posix.exit(CLI.run(arguments, commands: commands))
