import HTTP
import Testing

/// A keep-alive client's repeated field section is given its fields again without being
/// read (`FieldSectionMemo`): the same requests come out, only the strings are shared.
@Suite struct FieldSectionMemoTests {
    static func requests(_ text: String, on parser: inout HTTPRequestParser) -> [(HTTPRequest, Bool)] {
        parser.feed(Array(text.utf8)).compactMap { event in
            if case .request(let request, let keepAlive) = event { return (request, keepAlive) }
            return nil
        }
    }

    static func sameStorage<T>(_ a: [T], _ b: [T]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    static let check = "GET /v1/projects/demo/release-control?platform=ios HTTP/1.1\r\n"
    static let fields =
        "Host: 127.0.0.1:8080\r\nIf-None-Match: W/\"0123456789abcdef\"\r\nUser-Agent: lerix-sdk/1.0\r\n\r\n"

    @Test func aRepeatedSectionGivesTheSameFieldsWithoutMakingThemAgain() {
        var parser = HTTPRequestParser()
        let got = Self.requests(Self.check + Self.fields + Self.check + Self.fields, on: &parser)
        #expect(got.count == 2)
        guard got.count == 2 else { return }
        #expect(got[0].0.headers == got[1].0.headers && got[1].1)
        #expect(got[1].0.headers["If-None-Match"] == "W/\"0123456789abcdef\"")
        #expect(
            Self.sameStorage(got[0].0.headers.fields, got[1].0.headers.fields),
            "the second shares the first's fields"
        )
        // Split anywhere, across reads: the same.
        let later =
            Self.requests(Self.check + String(Self.fields.prefix(30)), on: &parser)
            + Self.requests(String(Self.fields.dropFirst(30)), on: &parser)
        #expect(
            later.count == 1
                && later.first.map { Self.sameStorage($0.0.headers.fields, got[0].0.headers.fields) } == true
        )
    }

    @Test func aSectionThatDiffersByOneByteIsReadAnew() {
        var parser = HTTPRequestParser()
        let other = "Host: 127.0.0.1:8080\r\nIf-None-Match: W/\"0123456789abcdee\"\r\nUser-Agent: lerix-sdk/1.0\r\n\r\n"
        let got = Self.requests(Self.check + Self.fields + Self.check + other, on: &parser)
        #expect(got.count == 2)
        guard got.count == 2 else { return }
        #expect(got[1].0.headers["If-None-Match"] == "W/\"0123456789abcdee\"")
        #expect(!Self.sameStorage(got[0].0.headers.fields, got[1].0.headers.fields))
    }

    @Test func theVersionIsPartOfTheKey() {
        var parser = HTTPRequestParser()
        // No fields: fine for HTTP/1.0, a 400 for HTTP/1.1 (no Host), after and before the other.
        let events = parser.feed(Array("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8))
        guard case .request(_, let keepAlive10)? = events.first else {
            Issue.record("no HTTP/1.0 request: \(events)")
            return
        }
        #expect(keepAlive10)
        var empty = HTTPRequestParser()
        #expect(empty.feed(Array("GET / HTTP/1.0\r\n\r\n".utf8)).count == 1)
        let refused = empty.feed(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        guard case .failure(let error)? = refused.first else {
            Issue.record("an HTTP/1.1 request without Host passed after an HTTP/1.0 one: \(refused)")
            return
        }
        #expect(error.status == 400)
        // Connection: close on 1.1 then the same section on 1.0 and 1.1 again: each its own keep-alive.
        var closing = HTTPRequestParser()
        let section = "Host: x\r\n\r\n"
        let got = Self.requests("GET / HTTP/1.1\r\n" + section + "GET / HTTP/1.0\r\n" + section, on: &closing)
        #expect(got.map(\.1) == [true, false])
    }
}

/// A keep-alive client's repeated request line gives its method, target and version again
/// without being read (`RequestLineMemo`).
@Suite struct RequestLineMemoTests {
    static func targets(_ text: String, on parser: inout HTTPRequestParser) -> [HTTPRequest] {
        parser.feed(Array(text.utf8)).compactMap { event in
            if case .request(let request, _) = event { return request }
            return nil
        }
    }

    /// The same storage: the target was not decoded again.
    static func sameString(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.baseAddress == y.baseAddress } }
    }

    static let target = "/v1/projects/demo/release-control?platform=ios&version=1.0.0"

    @Test func aRepeatedLineGivesTheSameTargetWithoutDecodingIt() {
        var parser = HTTPRequestParser()
        let line = "GET \(Self.target) HTTP/1.1\r\nHost: x\r\n\r\n"
        let got = Self.targets(line + line, on: &parser)
        #expect(got.count == 2)
        guard got.count == 2 else { return }
        #expect(got.allSatisfy { $0.method == "GET" && $0.target == Self.target && $0.version == .http1_1 })
        #expect(Self.sameString(got[0].target, got[1].target), "the second shares the first's target")
    }

    @Test func aLineThatDiffersAnywhereIsReadAnew() {
        var parser = HTTPRequestParser()
        let got = Self.targets(
            "GET \(Self.target) HTTP/1.1\r\nHost: x\r\n\r\n" + "HEAD \(Self.target) HTTP/1.1\r\nHost: x\r\n\r\n"
                + "HEAD \(Self.target) HTTP/1.0\r\nHost: x\r\n\r\n"
                + "HEAD http://x\(Self.target) HTTP/1.0\r\nHost: x\r\n\r\n"
                + "HEAD \(Self.target)1 HTTP/1.0\r\nHost: x\r\n\r\n",
            on: &parser
        )
        #expect(got.map(\.method) == ["GET", "HEAD", "HEAD", "HEAD", "HEAD"])
        #expect(got.map(\.version) == [.http1_1, .http1_1, .http1_0, .http1_0, .http1_0])
        #expect(got.map(\.target) == [Self.target, Self.target, Self.target, Self.target, Self.target + "1"])
        // A line that fails is refused however often it comes, after one that parsed.
        var refusing = HTTPRequestParser()
        _ = Self.targets("GET / HTTP/1.1\r\nHost: x\r\n\r\n", on: &refusing)
        guard case .failure(let error)? = refusing.feed(Array("GET / HTTP/2.0\r\nHost: x\r\n\r\n".utf8)).first else {
            Issue.record("HTTP/2.0 on the request line passed")
            return
        }
        #expect(error.status == 505)
    }
}

/// Parsers that share one ``HTTPHeadMemo`` (a server loop's connections) hit it across
/// connections and, whatever order their bytes come in, return what parsers of their own would.
@Suite struct HTTPHeadMemoTests {
    static let check = FieldSectionMemoTests.check + FieldSectionMemoTests.fields
    static let other = "GET /v1/projects/demo/release-control?platform=web HTTP/1.1\r\nHost: y\r\n\r\n"

    @Test func aSecondConnectionsSameRequestSharesTheFirstsStrings() {
        let memo = HTTPHeadMemo()
        var first = HTTPRequestParser(headMemo: memo)
        var second = HTTPRequestParser(headMemo: memo)
        let a = FieldSectionMemoTests.requests(Self.check, on: &first)
        let b = FieldSectionMemoTests.requests(Self.check, on: &second)
        #expect(a.count == 1 && b.count == 1)
        guard let a = a.first?.0, let b = b.first?.0 else { return }
        #expect(a.target == b.target && a.headers == b.headers)
        #expect(FieldSectionMemoTests.sameStorage(a.headers.fields, b.headers.fields))
        #expect(RequestLineMemoTests.sameString(a.target, b.target))
    }

    @Test func interleavedConnectionsGetWhatTheirOwnParsersWould() {
        let head10 = "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
        let streams = [
            Array((Self.check + Self.other + head10 + Self.check).utf8),
            Array((Self.other + Self.check + Self.check + "GET / HTTP/1.1\r\n\r\n").utf8),
        ]
        // The two connections' bytes in pieces that take turns, so one connection's line or
        // fields parse between the other's.
        for piece in [1, 7, 40, 64, 1000] {
            let memo = HTTPHeadMemo()
            var shared = [HTTPRequestParser(headMemo: memo), HTTPRequestParser(headMemo: memo)]
            var own = [HTTPRequestParser(), HTTPRequestParser()]
            var sharedGot: [[String]] = [[], []]
            var ownGot: [[String]] = [[], []]
            for start in stride(from: 0, to: streams.map(\.count).max() ?? 0, by: piece) {
                for connection in 0..<2 where start < streams[connection].count {
                    let bytes = Array(streams[connection][start..<min(start + piece, streams[connection].count)])
                    sharedGot[connection] += Self.describe(shared[connection].feed(bytes))
                    ownGot[connection] += Self.describe(own[connection].feed(bytes))
                }
            }
            #expect(sharedGot == ownGot, "pieces of \(piece)")
            #expect(sharedGot.map(\.count) == [4, 4], "pieces of \(piece): \(sharedGot)")
            #expect(sharedGot[1].last?.hasPrefix("failure 400") == true, "no Host on HTTP/1.1")
        }
    }

    static func describe(_ events: [HTTPParserEvent]) -> [String] {
        events.map { event in
            switch event {
            case .request(let request, let keepAlive):
                "\(request.method) \(request.target) \(request.version) \(request.headers.fields) \(keepAlive)"
            case .failure(let error): "failure \(error.status)"
            default: "\(event)"
            }
        }
    }
}
