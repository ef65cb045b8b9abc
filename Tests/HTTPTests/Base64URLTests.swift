import HTTP
import Testing

/// The one base64url codec and its two readings: strict for JWT segments, lenient for an
/// `HTTP2-Settings` header (each was a decoder of its own, in TLS and in HTTP2).
@Suite struct Base64URLTests {
    static let samples: [[UInt8]] = (0..<40).map { length in
        (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
    }

    @Test func everyLengthRoundTripsWithoutPaddingInBothReadings() {
        for bytes in Self.samples {
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(text.utf8.count == (bytes.count * 4 + 2) / 3)
            #expect(Base64URL.decode(text, .strict) == bytes)
            #expect(Base64URL.decode(text, .lenient) == bytes)
        }
        #expect(Base64URL.encode(Array("hi".utf8)) == "aGk")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    /// RFC 7515 §2: a JWS segment is the URL-safe alphabet without padding or white space.
    @Test func strictRefusesPaddingTheStandardAlphabetWhiteSpaceAndImpossibleLengths() {
        #expect(Base64URL.decode("aGk", .strict) == Array("hi".utf8))
        #expect(Base64URL.decode("aGk=", .strict) == nil)
        #expect(Base64URL.decode("ab+c", .strict) == nil)
        #expect(Base64URL.decode("ab/c", .strict) == nil)
        #expect(Base64URL.decode("ab c", .strict) == nil)
        #expect(Base64URL.decode("ab!c", .strict) == nil)
        #expect(Base64URL.decode("a", .strict) == nil)
        #expect(Base64URL.decode("abcde", .strict) == nil)
        #expect(Base64URL.decode("", .strict) == [])
    }

    /// What curl and other clients put in `HTTP2-Settings` is read as it always was: either
    /// alphabet, `=` and white space skipped; anything else refused.
    @Test func lenientReadsEitherAlphabetAndSkipsPaddingAndBlanks() {
        #expect(Base64URL.decode("AAMAAABk", .lenient) == [0, 3, 0, 0, 0, 100])
        #expect(Base64URL.decode("-_8", .lenient) == [0xFB, 0xFF])
        #expect(Base64URL.decode("+/8=", .lenient) == [0xFB, 0xFF])
        #expect(Base64URL.decode(" AAMA AABk\t", .lenient) == [0, 3, 0, 0, 0, 100])
        #expect(Base64URL.decode("!!", .lenient) == nil)
        #expect(Base64URL.decode("a", .lenient) == [])
    }
}
