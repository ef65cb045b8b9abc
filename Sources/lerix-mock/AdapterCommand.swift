import Adapter
import AdapterProtocol
import Foundation
import LerixSDK

/// `lerix-mock adapter`: the Swift SDK behind the adapter protocol, one JSON line in, one out.
enum AdapterCommand: CLICommand {
    static let name = "adapter"
    static let summary = "host Swift SDK devices in virtual time over stdin/stdout (ADAPTER.md)"
    static let usage = """
        usage: lerix-mock adapter [--server-clock URL] [--admin-token TOKEN] [--client sockets|urlsession]
                                  [--max-connections N] [--request-timeout SECONDS] [--platforms LIST] [--quiet]

        Reads one JSON command per line on stdin and answers one JSON line each on stdout, in
        order. Commands: \(AdapterProtocol.AdapterCommand.allCases.map(\.rawValue).joined(separator: ", "))
        (set_clock: the user sets a device's clock, {"device", "clock_offset_seconds"}). Logs go to stderr.

          --server-clock URL       also move that server's manual clock (POST URL/admin/clock) to
                                   every instant at which timers fire, so one `advance` may span a week
          --admin-token TOKEN      bearer token for --server-clock
          --client sockets         the adapter's keep-alive HTTP/1.1 client (default, fast)
          --client urlsession      the SDK's default URLSession transport (on Linux it trusts only the system store)
          --tls-ca FILE            trust this CA (PEM) too for https:// servers (the sockets client)
          --max-connections N      connections per server with the sockets client (default 128)
          --request-timeout S      real seconds before a request fails (default 30)
          --platforms LIST         emulate only these platforms (comma-separated:
                                   \(AdapterVocabulary.platforms.joined(separator: ", "))), as an SDK of one platform
                                   would: `hello` lists only them and `create` on another is refused
          --quiet                  no logs on stderr

        example:
          echo '{"id":1,"cmd":"hello"}' | lerix-mock adapter
        """

    static func run(_ arguments: [String]) -> Int32 {
        let parser = ArgumentParser(
            valued: [
                "--server-clock", "--admin-token", "--client", "--max-connections", "--request-timeout", "--tls-ca",
                "--platforms",
            ],
            flags: ["--quiet"]
        )
        let parsed: ArgumentParser.Parsed
        do {
            parsed = try parser.parse(arguments)
        } catch {
            CLI.printError("lerix-mock adapter: \(error.description)\n\n\(usage)")
            return 2
        }
        guard parsed.positional.isEmpty else {
            CLI.printError("lerix-mock adapter: unexpected argument \(parsed.positional[0])")
            return 2
        }
        var socketOptions = HTTPClientNetwork.Options()
        if let text = parsed.value("--max-connections") {
            guard let n = Int(text), n > 0 else {
                CLI.printError("lerix-mock adapter: --max-connections must be a positive number, not \(text)")
                return 2
            }
            socketOptions.maximumConnectionsPerOrigin = n
        }
        var timeout = 30
        if let text = parsed.value("--request-timeout") {
            guard let n = Int(text), n > 0 else {
                CLI.printError(
                    "lerix-mock adapter: --request-timeout must be a positive number of seconds, not \(text)"
                )
                return 2
            }
            timeout = n
        }
        socketOptions.requestTimeout = .seconds(timeout)
        socketOptions.trustedCAFile = parsed.value("--tls-ca")
        if socketOptions.trustedCAFile != nil && parsed.value("--client") == "urlsession" {
            CLI.printError(
                "lerix-mock adapter: --tls-ca applies to --client sockets; URLSession on Linux (libcurl) trusts the system store only: add the CA there"
            )
            return 2
        }
        let network: any AdapterNetwork
        switch parsed.value("--client") ?? "sockets" {
        case "sockets": network = HTTPClientNetwork(options: socketOptions)
        case "urlsession": network = TransportNetwork(URLSessionTransport(timeout: .seconds(timeout)))
        case let other:
            CLI.printError("lerix-mock adapter: --client must be sockets or urlsession, not \(other)")
            return 2
        }
        var options = AdapterHost.Options()
        options.serverClockURL = parsed.value("--server-clock").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        options.adminToken = parsed.value("--admin-token")
        if !parsed.flag("--quiet") { options.log = { CLI.printError($0) } }
        options.requestTimeoutSeconds = Double(timeout)
        if let text = parsed.value("--platforms") {
            let listed = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if let unknown = listed.first(where: { !AdapterVocabulary.platforms.contains($0) }) {
                CLI.printError(
                    "lerix-mock adapter: --platforms takes \(AdapterVocabulary.platforms.joined(separator: ", ")), not '\(unknown)'"
                )
                return 2
            }
            options.platforms = AdapterVocabulary.platforms.filter(listed.contains)
        }
        let host = AdapterHost(network: network, options: options)
        while let line = readLine(strippingNewline: true) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            CLI.printData(host.handleLine(line))
        }
        return 0
    }
}
