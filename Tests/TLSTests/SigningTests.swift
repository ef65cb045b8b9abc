import TLS
import Testing

@Suite struct SigningTests {
    @Test func es256SignaturesAre64BytesAndVerifyOnlyForTheSignedMessage() throws {
        let key = try PrivateKey.generateP256()
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJUIn0".utf8)
        let signature = try key.sign(message, as: .es256)
        #expect(signature.count == 64)
        let publicKey = try key.publicKey()
        #expect(publicKey.verify(signature, over: message, as: .es256))
        #expect(!publicKey.verify(signature, over: message + [0x41], as: .es256))
        #expect(!publicKey.verify(Array(signature.reversed()), over: message, as: .es256))
        #expect(!publicKey.verify(signature, over: message, as: .rs256))
        let other = try PrivateKey.generateP256().publicKey()
        #expect(!other.verify(signature, over: message, as: .es256))
    }

    @Test func rs256RoundTripsAndKeysReadBackFromPEM() throws {
        let key = try PrivateKey.generateRSA()
        let reread = try PrivateKey(pem: key.pem())
        let signature = try reread.sign(Array("abc".utf8), as: .rs256)
        #expect(signature.count == 256)
        #expect(try PublicKey(pem: key.pem()).verify(signature, over: Array("abc".utf8), as: .rs256))
    }

    @Test func theWrongKindOfKeyIsAClearError() throws {
        let rsa = try PrivateKey.generateRSA()
        do {
            _ = try rsa.sign([1], as: .es256)
            Issue.record("RSA signed ES256")
        } catch {
            #expect(error.message.contains("ES256 needs an EC P-256 key"))
        }
        #expect(throws: TLSError.self) { try PrivateKey(pem: Array("not a key".utf8)) }
    }
}
