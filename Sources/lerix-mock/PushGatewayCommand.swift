import Clock
import Dispatch
import HTTPServer
import ProviderAuth
import Push
import TLS

/// `lerix-mock push-gateway`: the APNs/FCM stand-in (``PushGateway``) on a port.
enum PushGatewayCommand: CLICommand {
    static let name = "push-gateway"
    static let summary = "run a stand-in for APNs and FCM that checks, records and can reject pushes"
    static let usage = """
        usage: lerix-mock push-gateway [OPTIONS]

        A stand-in for both push providers, over h2c (HTTP/2 with prior knowledge) and HTTP/1.1 on one
        port. It checks requests the way APNs and FCM do, answers in their error forms, records what it
        accepts, and can be told to reject tokens, go unavailable or answer slowly. Point
        `lerix-mock serve --apns-gateway/--fcm-gateway` at it. The first line on stdout is
        `listening on http://HOST:PORT`. `curl http://HOST:PORT/` lists the endpoints.

        options:
          --host HOST              address to listen on (default 127.0.0.1)
          --port N                 port (default 8081; 0 picks a free port)
          --max-recorded N         deliveries kept for GET /deliveries (default 200000; the oldest go first)
          --max-recorded-mb N      and the memory they may take, in MiB (default 64; the oldest go first)
          --tls-cert FILE          also speak TLS on the port (ALPN h2, http/1.1), as APNs and FCM do; PEM chain
          --tls-key FILE           the certificate's private key, PEM (PKCS#8 or traditional)
          --apns-auth-public-key PEM
                                   check APNs provider tokens (ES256 JWTs) against this public key (or the .p8
                                   itself): 403 MissingProviderToken / InvalidProviderToken / ExpiredProviderToken
          --fcm-credentials FILE   a service-account JSON: serve its OAuth token endpoint at the token_uri path and
                                   answer FCM sends without one of its access tokens with 401 UNAUTHENTICATED
          --allow-host NAME        /control, /deliveries and /stats also answer requests whose Host is NAME
                                   (repeatable; e.g. a Compose service name); by default only IP addresses,
                                   localhost and the --host name, so a web page that rebinds its name cannot
                                   reach them. Writes there take Content-Type: application/json only.
          --quiet                  no per-request log lines
        """

    static let parser = ArgumentParser(
        valued: [
            "--host", "--port", "--max-recorded", "--max-recorded-mb", "--tls-cert", "--tls-key",
            "--apns-auth-public-key", "--fcm-credentials", "--allow-host",
        ],
        flags: ["--quiet"],
        repeatable: ["--allow-host"]
    )

    static func run(_ arguments: [String]) -> Int32 {
        let host: String
        let port: Int
        let maxRecorded: Int
        let maxRecordedBytes: Int
        let quiet: Bool
        let tlsFiles: TLSFiles?
        let apnsPublicKey: String?
        let fcmCredentials: String?
        let allowedHosts: [String]
        do {
            let parsed = try parser.parse(arguments)
            if let extra = parsed.positional.first {
                throw ArgumentParser.Failure(description: "unexpected argument '\(extra)'")
            }
            host = parsed.value("--host") ?? "127.0.0.1"
            let portText = parsed.value("--port") ?? "8081"
            guard let p = Int(portText), (0...65_535).contains(p) else {
                throw ArgumentParser.Failure(description: "--port needs a number from 0 to 65535, not '\(portText)'")
            }
            port = p
            let maxText = parsed.value("--max-recorded") ?? "200000"
            guard let m = Int(maxText), m >= 1 else {
                throw ArgumentParser.Failure(
                    description: "--max-recorded needs a whole number of at least 1, not '\(maxText)'"
                )
            }
            maxRecorded = m
            let mbText = parsed.value("--max-recorded-mb") ?? "64"
            guard let mb = Int(mbText), (2...65_536).contains(mb) else {
                throw ArgumentParser.Failure(
                    description: "--max-recorded-mb needs a whole number of MiB from 2 to 65536, not '\(mbText)'"
                )
            }
            maxRecordedBytes = mb << 20
            quiet = parsed.flag("--quiet")
            tlsFiles = try TLSFiles(parsed)
            apnsPublicKey = parsed.value("--apns-auth-public-key")
            fcmCredentials = parsed.value("--fcm-credentials")
            // The name it was told to listen on is its own, too.
            allowedHosts = try parsed.allowedHosts() + [host]
        } catch {
            CLI.printError("lerix-mock push-gateway: \(error)\nrun `lerix-mock push-gateway --help` for the options")
            return 2
        }
        // Lines leave through one background writer, batched per loop wake-up, as serve's do.
        let log: RequestLogWriter? = quiet ? nil : RequestLogWriter()
        do {
            var authentication = PushGateway.Authentication()
            if let apnsPublicKey {
                authentication.apns = try APNsTokenCheck(
                    publicKey: PublicKey(file: apnsPublicKey, what: "--apns-auth-public-key file")
                )
            }
            if let fcmCredentials {
                authentication.fcm = try FCMTokenIssuer(account: ServiceAccount(file: fcmCredentials))
            }
            let gateway = PushGateway(
                scheduler: SystemScheduler(),
                maxRecordedDeliveries: maxRecorded,
                maxRecordedBytes: maxRecordedBytes,
                authentication: authentication,
                allowedHosts: allowedHosts
            )
            let tls = try tlsFiles?.serverContext()
            let server = HTTPServer(
                configuration: .init(host: host, port: port, tls: tls),
                responder: gateway,
                log: log
            )
            let bound = try server.start()
            ServeCommand.stopOnSignals(server)
            CLI.printOut(ServeCommand.listeningLine(host: host, port: bound, tls: tls != nil))
        } catch {
            CLI.printError("lerix-mock push-gateway: \(error)")
            return 1
        }
        dispatchMain()
    }
}
