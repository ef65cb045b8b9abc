import Clock
import POSIX
import TLS

/// `lerix-mock dev-cert [DIR]`: a local certificate authority and a server certificate it signed
/// for this machine, with how to make each kind of client trust it (as mkcert does).
enum DevCertCommand: CLICommand {
    static let name = "dev-cert"
    static let summary =
        "make a local CA and a certificate for localhost, 127.0.0.1, ::1 and this host (for serve --tls-cert)"
    static let usage = """
        usage: lerix-mock dev-cert [DIR] [--name NAME]...

        Writes into DIR (default ./lerix-dev-cert, created if needed):
          ca.pem        a local certificate authority: the one file devices and browsers must trust
          ca-key.pem    its private key (kept; a later run reuses the CA so nothing must be trusted again)
          cert.pem      a server certificate for localhost, 127.0.0.1, ::1, this host's name and each --name
          key.pem       its private key
        then prints how to trust the CA in an iOS simulator, an Android emulator, a browser and curl.

        options:
          --name NAME   also certify NAME (a host name or IP address), e.g. your LAN address for a phone,
                        or 10.0.2.2, the address an Android emulator reaches the host by (repeatable)
        """

    static let parser = ArgumentParser(valued: ["--name"], flags: [], repeatable: ["--name"])

    static func run(_ arguments: [String]) -> Int32 {
        let folder: String
        let extraNames: [String]
        do {
            let parsed = try parser.parse(arguments)
            guard parsed.positional.count <= 1 else {
                throw ArgumentParser.Failure(description: "unexpected argument '\(parsed.positional[1])'")
            }
            folder = parsed.positional.first ?? "lerix-dev-cert"
            extraNames = parsed.allValues("--name")
            if let empty = extraNames.first(where: { $0.isEmpty || $0.contains(",") }) {
                throw ArgumentParser.Failure(description: "--name needs a host name or IP address, not '\(empty)'")
            }
        } catch {
            CLI.printError("lerix-mock dev-cert: \(error)\nrun `lerix-mock dev-cert --help` for the options")
            return 2
        }
        do {
            let now = SystemScheduler().now.millisecondsSinceEpoch / 1000
            try DevCertFiles.makeFolder(folder)
            let caPath = folder + "/ca.pem"
            let caKeyPath = folder + "/ca-key.pem"
            let authority: CertificateIssuer.Issued
            let reused: Bool
            if DevCertFiles.exists(caPath) && DevCertFiles.exists(caKeyPath) {
                let certificate = try Certificate.chain(file: caPath, what: "the CA file")[0]
                authority = CertificateIssuer.Issued(
                    certificate: certificate,
                    key: try PrivateKey(file: caKeyPath, what: "the CA key file")
                )
                reused = true
                if certificate.isExpired(atUnixSeconds: now) {
                    throw TLSError(
                        "the CA in '\(caPath)' expired on \(certificate.notAfterText): remove ca.pem and ca-key.pem to make a new one"
                    )
                }
            } else {
                authority = try CertificateIssuer.authority(
                    commonName: "lerix-mock development CA (\(DevCertFiles.hostName() ?? "local"))",
                    now: now
                )
                try DevCertFiles.write(authority.key.pem(), to: caKeyPath, private: true)
                try DevCertFiles.write(authority.certificate.pem(), to: caPath, private: false)
                reused = false
            }
            var names = ["localhost", "127.0.0.1", "::1"]
            if let host = DevCertFiles.hostName(), !names.contains(host) { names.append(host) }
            for name in extraNames where !names.contains(name) { names.append(name) }
            let server = try CertificateIssuer.server(names: names, signedBy: authority, now: now)
            try DevCertFiles.write(server.key.pem(), to: folder + "/key.pem", private: true)
            try DevCertFiles.write(server.certificate.pem(), to: folder + "/cert.pem", private: false)
            CLI.printOut(
                instructions(
                    folder: folder,
                    names: names,
                    reused: reused,
                    server: server.certificate,
                    authority: authority.certificate
                )
            )
            return 0
        } catch {
            CLI.printError("lerix-mock dev-cert: \(error)")
            return 1
        }
    }

    static func instructions(
        folder: String,
        names: [String],
        reused: Bool,
        server: Certificate,
        authority: Certificate
    ) -> String {
        let ca = folder + "/ca.pem"
        return """
            \(reused ? "reused the CA in" : "made a new CA:") \(ca) (SHA-256 \(authority.sha256Fingerprint))
            wrote \(folder)/cert.pem and \(folder)/key.pem for \(names.joined(separator: ", ")), valid until \(server.notAfterText)

            Serve https (and plain http) on one port:
              lerix-mock serve --tls-cert \(folder)/cert.pem --tls-key \(folder)/key.pem
            curl:
              curl --cacert \(ca) https://localhost:8080/healthz
            iOS simulator (booted):
              xcrun simctl keychain booted add-root-cert \(ca)
            Android emulator (reaches this machine as 10.0.2.2: run dev-cert again with --name 10.0.2.2):
              adb push \(ca) /sdcard/Download/lerix-dev-ca.pem
              then Settings > Security > Encryption & credentials > Install a certificate > CA certificate,
              and let debug builds trust user CAs: <debug-overrides><trust-anchors><certificates src="user"/>
              in res/xml/network_security_config.xml
            Browser:
              Chrome/Edge: Settings > Privacy and security > Security > Manage certificates > Authorities > Import \(ca)
              Firefox: Settings > Privacy & Security > Certificates > View Certificates > Authorities > Import
              macOS (Safari, and a real iPhone via AirDrop of ca.pem + Settings > General > About > Certificate Trust Settings):
              security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db \(ca)
            A phone on the desk: add this machine's LAN address with --name, and serve with --host 0.0.0.0.
            Keep ca-key.pem private: anyone holding it can make certificates your devices trust.
            """
    }
}

/// File handling for `dev-cert`: private keys are created readable by their owner only.
enum DevCertFiles {
    static func exists(_ path: String) -> Bool { Posix.exists(path) }

    static func makeFolder(_ path: String) throws(TLSError) {
        do {
            try Posix.makeFolder(path)
        } catch {
            throw TLSError("cannot create the folder '\(path)': \(error.reason)")
        }
    }

    static func write(_ bytes: [UInt8], to path: String, private isPrivate: Bool) throws(TLSError) {
        do {
            try Posix.writeFile(bytes, to: path, permissions: isPrivate ? 0o600 : 0o644)
        } catch {
            throw TLSError("cannot write '\(path)': \(error.reason)")
        }
    }

    static func hostName() -> String? {
        guard let name = Posix.hostName() else { return nil }
        return name.isEmpty || name == "localhost" ? nil : name
    }
}
