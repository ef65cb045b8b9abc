import HTTP
import Testing

@Suite struct HTTPURLTests {
    func parsed(_ text: String) -> HTTPURL? { try? HTTPURL(parsing: text) }

    func message(_ text: String) -> String {
        do {
            let url = try HTTPURL(parsing: text)
            return "accepted as \(url)"
        } catch {
            return error.message
        }
    }

    @Test func splitsSchemeHostPortPathAndQuery() throws {
        let url = try HTTPURL(parsing: "http://127.0.0.1:8080/v1/projects/demo/release-control?platform=ios&v=1")
        #expect(url.scheme == .http)
        #expect(!url.isSecure)
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 8080)
        #expect(url.path == "/v1/projects/demo/release-control")
        #expect(url.query == "platform=ios&v=1")
        #expect(url.target == "/v1/projects/demo/release-control?platform=ios&v=1")
        #expect(url.authority == "127.0.0.1:8080")
        #expect(url.description == "http://127.0.0.1:8080/v1/projects/demo/release-control?platform=ios&v=1")
    }

    @Test func defaultsPortByScheme_andLeavesTheDefaultOutOfTheAuthority() throws {
        let plain = try HTTPURL(parsing: "http://localhost")
        #expect(plain.port == 80)
        #expect(plain.path == "/")
        #expect(plain.target == "/")
        #expect(plain.authority == "localhost")
        let secure = try HTTPURL(parsing: "HTTPS://api.sandbox.push.apple.com")
        #expect(secure.scheme == .https)
        #expect(secure.isSecure)
        #expect(secure.port == 443)
        #expect(secure.authority == "api.sandbox.push.apple.com")
        #expect(try HTTPURL(parsing: "https://x:443/").authority == "x")
        #expect(try HTTPURL(parsing: "http://x:443/").authority == "x:443")
        // RFC 3986: an empty port is the default one.
        #expect(try HTTPURL(parsing: "http://x:/a").port == 80)
    }

    @Test func readsBracketedIPv6Literals() throws {
        let url = try HTTPURL(parsing: "http://[::1]:9/p")
        #expect(url.host == "::1")
        #expect(url.port == 9)
        #expect(url.authority == "[::1]:9")
        #expect(try HTTPURL(parsing: "https://[2001:db8::8a2e:370:7334]").authority == "[2001:db8::8a2e:370:7334]")
        #expect(try HTTPURL(parsing: "http://[::ffff:127.0.0.1]:80/").host == "::ffff:127.0.0.1")
        #expect(try HTTPURL(parsing: "http://[1:2:3:4:5:6:7:8]/").host == "1:2:3:4:5:6:7:8")
        for bad in [
            "http://[::1/", "http://[::1]x/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[12345::]/", "http://[g::1]/",
            "http://[1::2::3]/", "http://[]/", "http://[1:2:3:4:5:6:7]/", "http://[::1%25eth0]/",
            "http://[::256.1.1.1]/",
        ] {
            #expect(parsed(bad) == nil, "accepted \(bad)")
        }
    }

    @Test func dropsTheFragmentAndKeepsEscapes() throws {
        let url = try HTTPURL(parsing: "http://h/a%20b/c?x=%2F#frag")
        #expect(url.path == "/a%20b/c")
        #expect(url.query == "x=%2F")
        #expect(try HTTPURL(parsing: "http://h#f").target == "/")
        #expect(try HTTPURL(parsing: "http://h?q").target == "/?q")
        #expect(try HTTPURL(parsing: "http://h/?").query == "")
        #expect(try HTTPURL(parsing: "  http://h/x \n").path == "/x")
    }

    @Test func pathPrefixHasNoTrailingSlash() throws {
        #expect(try HTTPURL(parsing: "http://127.0.0.1:9443/base/").pathPrefix == "/base")
        #expect(try HTTPURL(parsing: "http://127.0.0.1:9443").pathPrefix == "")
        #expect(try HTTPURL(parsing: "http://127.0.0.1:9443//").pathPrefix == "")
    }

    @Test func withTargetKeepsTheOrigin() throws {
        let root = try HTTPURL(parsing: "http://[::1]:8080")
        let admin = root.with(target: "/admin/clock?x=1")
        #expect(admin.authority == "[::1]:8080")
        #expect(admin.path == "/admin/clock")
        #expect(admin.query == "x=1")
        #expect(root.with(target: "").target == "/")
    }

    @Test func memberwiseURLsDefaultThePort() {
        #expect(HTTPURL(scheme: .https, host: "localhost").port == 443)
        #expect(HTTPURL(scheme: .http, host: "::1", port: 8080, path: "").description == "http://[::1]:8080")
        #expect(HTTPURL(scheme: .http, host: "h", path: "/a/", query: "q").description == "http://h/a/?q")
    }

    @Test func refusesWhatIsNoHTTPURL_withAMessageThatSaysWhy() {
        #expect(message("ftp://x/").contains("expected http:// or https://"))
        #expect(message("127.0.0.1:8080").contains("expected http:// or https://"))
        #expect(message("http//x").contains("expected http:// or https://"))
        #expect(message("http://").contains("no host"))
        #expect(message("http://:80/").contains("no host"))
        #expect(message("http:///path").contains("no host"))
        #expect(message("http://user:pw@x/").contains("credentials"))
        #expect(message("http://x:99999/").contains("1 to 65535"))
        #expect(message("http://x:0/").contains("1 to 65535"))
        #expect(message("http://x:abc/").contains("1 to 65535"))
        #expect(message("http://x:123456/").contains("1 to 65535"))
        #expect(message("http://::1:8080/").contains("brackets"))
        #expect(message("http://ex ample.com/").contains("a space"))
        #expect(message("http://bücher.de/").contains("punycode"))
        #expect(message("http://h/a b").contains("path holds a space"))
        #expect(message("http://h/a?b=c d").contains("query holds a space"))
        #expect(message("http://h/\u{1}").contains("control character"))
        #expect(message("http://h/é").contains("non-ASCII"))
        #expect(message("http://h/100%").contains("'%' not followed"))
        #expect(message("http://h/%zz").contains("'%' not followed"))
        #expect(message("http://h/[").contains("accepted"))  // bytes the server takes pass
        do {
            _ = try HTTPURL(parsing: "ftp://x/")
        } catch {
            #expect(error.description.hasPrefix("invalid URL 'ftp://x/': "))
            #expect(error.url == "ftp://x/")
        }
    }

    @Test func everyPrefixOfAValidURLParsesOrFailsWithoutCrashing() {
        let text = "https://[2001:db8::1]:8443/v1/p%20q?x=1#f"
        for end in text.indices {
            _ = parsed(String(text[..<end]))
        }
        #expect(parsed(text) != nil)
    }
}
