import Clock
import TLS

/// `--tls-cert` and `--tls-key`, given together or not at all, shared by `serve` and `push-gateway`.
struct TLSFiles {
    var certificate: String
    var key: String

    /// nil when neither flag is given.
    init?(_ parsed: ArgumentParser.Parsed) throws(ArgumentParser.Failure) {
        switch (parsed.value("--tls-cert"), parsed.value("--tls-key")) {
        case (nil, nil): return nil
        case (let certificate?, let key?):
            self.certificate = certificate
            self.key = key
        case (_?, nil):
            throw ArgumentParser.Failure(description: "--tls-cert needs --tls-key (the certificate's private key) too")
        case (nil, _?):
            throw ArgumentParser.Failure(description: "--tls-key needs --tls-cert (the certificate chain) too")
        }
    }

    /// Loads and checks both files now, so a mistake stops the start with a message naming the file.
    /// Expiry is judged by the real clock, whatever `--clock` says: clients check it that way.
    func serverContext() throws(TLSError) -> TLSContext {
        try TLSContext.server(
            certificateFile: certificate,
            keyFile: key,
            now: SystemScheduler().now.millisecondsSinceEpoch / 1000
        )
    }
}
