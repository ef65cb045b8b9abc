import Foundation
import TLS
import TestSupport
import Testing

/// Start-up mistakes with certificate files: each stops with a message naming the file.
@Suite struct TLSContextTests {
    func failure(_ body: () throws(TLSError) -> TLSContext) -> String {
        do {
            _ = try body()
            return "no error"
        } catch {
            return error.message
        }
    }

    @Test func missingEmptySwappedAndMismatchedFilesAreNamed() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let now = TestCertificates.now
        #expect(
            failure { () throws(TLSError) in
                try TLSContext.server(certificateFile: files.folder + "/none.pem", keyFile: files.key, now: now)
            }
                == "--tls-cert file '\(files.folder)/none.pem' cannot be opened (missing or unreadable)"
        )
        let empty = try files.file("empty.pem", [])
        #expect(
            failure { () throws(TLSError) in try TLSContext.server(certificateFile: empty, keyFile: files.key, now: now)
            }
                == "--tls-cert file '\(empty)' is empty"
        )
        #expect(
            failure { () throws(TLSError) in
                try TLSContext.server(certificateFile: files.key, keyFile: files.certificate, now: now)
            }
            .contains("holds a private key, not a certificate (are the certificate and key swapped?)")
        )
        #expect(
            failure { () throws(TLSError) in
                try TLSContext.server(certificateFile: files.certificate, keyFile: files.authority, now: now)
            }
            .contains("holds a certificate, not a private key")
        )
        let otherKey = try files.file("other.pem", PrivateKey.generateP256().pem())
        #expect(
            failure { () throws(TLSError) in
                try TLSContext.server(certificateFile: files.certificate, keyFile: otherKey, now: now)
            }
                == "--tls-key file '\(otherKey)' does not match the certificate in '\(files.certificate)' (O = lerix-mock, CN = localhost): give the key the certificate was made for"
        )
    }

    @Test func anExpiredOrNotYetValidCertificateIsRefusedAtStart() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let now = TestCertificates.now
        let message = failure { () throws(TLSError) in
            try TLSContext.server(certificateFile: files.certificate, keyFile: files.key, now: now + 3 * 86_400)
        }
        #expect(message.contains("expired on"), "\(message)")
        #expect(message.contains("lerix-mock dev-cert"), "\(message)")
        let early = failure { () throws(TLSError) in
            try TLSContext.server(certificateFile: files.certificate, keyFile: files.key, now: now - 86_400)
        }
        #expect(early.contains("is not valid before"), "\(early)")
    }

    @Test func aChainFileServesLeafAndIntermediateAndTraditionalKeysLoad() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let chain = try files.file(
            "chain.pem",
            files.issued.certificate.pem() + files.authorityIssued.certificate.pem()
        )
        let context = try TLSContext.server(certificateFile: chain, keyFile: files.key, now: TestCertificates.now)
        #expect(context.chain.count == 2)
        #expect(context.chain[0].matches(host: "localhost") && context.chain[0].matches(host: "127.0.0.1"))
        #expect(!context.chain[0].matches(host: "example.org"))
        #expect(context.chain[1].isCertificateAuthority)
    }

    @Test func aCAFileWithoutACAIsRefused() throws {
        let files = try TestCertificates.make()
        defer { files.remove() }
        let message = failure { () throws(TLSError) in
            try TLSContext.client(trustingAlso: files.certificate, alpn: ["h2"])
        }
        #expect(message.contains("holds no CA certificate"), "\(message)")
        _ = try TLSContext.client(trustingAlso: files.authority, alpn: ["h2"])
    }
}
