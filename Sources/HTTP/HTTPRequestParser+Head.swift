/// Request line and field parsing: RFC 9112 §3 and §5, RFC 9110 §5.
extension HTTPRequestParser {
    enum Body: Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// What the fields say about the message: how its body is framed and what to answer.
    struct Framing {
        var body: Body
        var expectContinue: Bool
    }

    /// Parses `data[start..<lf]` (the request line, LF excluded) into `pending`. A line byte
    /// for byte the same as the last one that parsed (``RequestLineMemo``) gives its method,
    /// target and version again without being read.
    mutating func parseRequestLine(_ data: UnsafeRawBufferPointer, from start: Int, to lf: Int) -> HTTPParseError? {
        // A line this long is judged as if its end had not arrived, so the answer does not
        // depend on how the bytes were split.
        if lf - start > limits.maxTargetBytes + 64 { return unfinishedRequestLineError(data, from: start, to: lf) }
        let line = UnsafeRawBufferPointer(rebasing: data[start..<lf])
        if headMemo.line.holds(line) {
            pending.method = headMemo.line.method
            pending.target = headMemo.line.target
            pending.version = headMemo.line.version
            return nil
        }
        if let error = parseRequestLineText(data, from: start, to: lf) { return error }
        headMemo.line.remember(line, method: pending.method, target: pending.target, version: pending.version)
        return nil
    }

    /// ``parseRequestLine(_:from:to:)`` without the memo.
    private mutating func parseRequestLineText(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to lf: Int
    ) -> HTTPParseError? {
        let end = lf > start && data[lf - 1] == .cr ? lf - 1 : lf
        var i = start
        while i < end && data[i].isTokenChar { i += 1 }
        guard i > start, i < end, data[i] == .sp else {
            return .bad("the request line is not \"METHOD target HTTP/1.1\"")
        }
        let methodEnd = i
        let targetStart = i + 1
        i = targetStart
        while i < end && data[i] != .sp { i += 1 }
        let targetEnd = i
        if targetEnd - targetStart > limits.maxTargetBytes {
            return limits.targetTooLong
        }
        guard targetEnd > targetStart, i < end else {
            return .bad("the request line is not \"METHOD target HTTP/1.1\"")
        }
        for j in targetStart..<targetEnd where data[j] <= 0x20 || data[j] >= 0x7F {
            return .bad("the request target holds a byte that must be percent-encoded")
        }
        let versionStart = i + 1
        guard end - versionStart == 8,
            data[versionStart] == UInt8(ascii: "H"), data[versionStart + 1] == UInt8(ascii: "T"),
            data[versionStart + 2] == UInt8(ascii: "T"), data[versionStart + 3] == UInt8(ascii: "P"),
            data[versionStart + 4] == UInt8(ascii: "/"), data[versionStart + 6] == UInt8(ascii: "."),
            data[versionStart + 5].isDigit, data[versionStart + 7].isDigit
        else {
            return .bad("the request line does not end in an HTTP version such as HTTP/1.1")
        }
        let major = data[versionStart + 5]
        let minor = data[versionStart + 7]
        guard major == UInt8(ascii: "1"), minor == UInt8(ascii: "1") || minor == UInt8(ascii: "0") else {
            return HTTPParseError(
                status: 505,
                message: "only HTTP/1.0 and HTTP/1.1 are spoken here (HTTP/2 needs the connection preface)"
            )
        }
        pending.version = minor == UInt8(ascii: "1") ? .http1_1 : .http1_0
        pending.method = Self.method(data, from: start, to: methodEnd)
        let target = UnsafeRawBufferPointer(rebasing: data[targetStart..<targetEnd])
        if target[0] == UInt8(ascii: "/") {
            pending.target = String(decoding: target, as: UTF8.self)
            return nil
        }
        return normalizeTarget(target)
    }

    /// The request-target forms other than origin-form (RFC 9112 §3.2): absolute-form
    /// becomes its origin-form path and query, `*` and CONNECT's authority-form stay as sent.
    private mutating func normalizeTarget(_ target: UnsafeRawBufferPointer) -> HTTPParseError? {
        let text = String(decoding: target, as: UTF8.self)
        if text == "*" && pending.method == "OPTIONS" || pending.method == "CONNECT" {
            pending.target = text
            return nil
        }
        let lower = text.lowercasedASCII
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            let rest = text.utf8.dropFirst(scheme.utf8.count)
            guard let slash = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
                pending.target = "/"
                return nil
            }
            let path = String(decoding: rest[slash...], as: UTF8.self)
            pending.target = path.hasPrefix("?") ? "/" + path : path
            return nil
        }
        return .bad("the request target must be a path starting with \"/\"")
    }

    /// The error for a request line that grew past every limit without ending.
    func unfinishedRequestLineError(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to available: Int
    ) -> HTTPParseError {
        // Only the first maxTargetBytes + 65 bytes count: every split of the input has those.
        let end = min(available, start + limits.maxTargetBytes + 65)
        var i = start
        while i < end && data[i].isTokenChar { i += 1 }
        if i > start && i < end && data[i] == .sp {
            var j = i + 1
            while j < end && data[j] != .sp { j += 1 }
            if j == end || j - (i + 1) > limits.maxTargetBytes {
                return limits.targetTooLong
            }
        }
        return .bad("the request line is not \"METHOD target HTTP/1.1\"")
    }

    /// Common methods share one string instead of decoding bytes each time.
    static func method(_ data: UnsafeRawBufferPointer, from start: Int, to end: Int) -> String {
        let bytes = UnsafeRawBufferPointer(rebasing: data[start..<end])
        switch bytes.count {
        case 3:
            if bytes[0] == UInt8(ascii: "G") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "T") {
                return "GET"
            }
            if bytes[0] == UInt8(ascii: "P") && bytes[1] == UInt8(ascii: "U") && bytes[2] == UInt8(ascii: "T") {
                return "PUT"
            }
        case 4:
            if bytes.elementsEqual("POST".utf8) { return "POST" }
            if bytes.elementsEqual("HEAD".utf8) { return "HEAD" }
        default:
            break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses the field lines in `data[start..<end]` into `pending.headers` and works out
    /// the framing (RFC 9112 §6): Transfer-Encoding, Content-Length, Connection, Expect, Host.
    /// A section byte for byte the same as the last one that parsed (``FieldSectionMemo``)
    /// gives its fields and framing again without being read.
    mutating func parseFields(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to end: Int
    ) -> Result<Framing, HTTPParseError> {
        let section = UnsafeRawBufferPointer(rebasing: data[start..<end])
        if let framing = headMemo.section.framing(for: section, version: pending.version) {
            pending.headers.fields = headMemo.section.fields
            pendingKeepAlive = headMemo.section.keepAlive
            return .success(framing)
        }
        let result = parseFieldLines(data, from: start, to: end)
        if case .success(let framing) = result {
            headMemo.section.remember(
                section,
                version: pending.version,
                fields: pending.headers.fields,
                keepAlive: pendingKeepAlive,
                framing: framing
            )
        }
        return result
    }

    /// ``parseFields(_:from:to:)`` without the memo.
    private mutating func parseFieldLines(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to end: Int
    ) -> Result<Framing, HTTPParseError> {
        var fields: [HTTPField] = []
        fields.reserveCapacity(8)
        var framingFields = FramingFields()
        var expectContinue = false
        var hosts = 0
        var lineStart = start
        while lineStart < end {
            guard let lf = Self.firstLF(data, from: lineStart), lf < end + 2 else { break }
            let lineEnd = lf > lineStart && data[lf - 1] == .cr ? lf - 1 : lf
            let field: (name: String, value: String, nameEnd: Int)
            switch Self.parseField(data, from: lineStart, to: lineEnd) {
            case .failure(let error): return .failure(error)
            case .success(let value): field = value
            }
            let name = UnsafeRawBufferPointer(rebasing: data[lineStart..<field.nameEnd])
            switch name.count {
            case 4 where name.equalsLowercased("host"):
                hosts += 1
            case 6 where name.equalsLowercased("expect"):
                if field.value.lowercasedASCII == "100-continue" {
                    expectContinue = true
                } else {
                    return .failure(HTTPParseError(status: 417, message: "only \"Expect: 100-continue\" is understood"))
                }
            default:
                switch framingFields.take(name: name, value: field.value) {
                case .contentLengthNotANumber: return .failure(.bad("Content-Length is not one decimal number"))
                case .contentLengthsDisagree: return .failure(.bad("Content-Length fields disagree"))
                case nil: break
                }
            }
            fields.append(HTTPField(field.name, field.value))
            lineStart = lf + 1
        }
        pending.headers.fields = fields

        if pending.version == .http1_1 && hosts != 1 || hosts > 1 {
            return .failure(
                .bad(hosts == 0 ? "an HTTP/1.1 request needs a Host field" : "the request has more than one Host field")
            )
        }
        pendingKeepAlive = framingFields.keepAlive(pending.version)
        let codings = framingFields.codings

        var body = Body.none
        if framingFields.sawTransferEncoding {
            if pending.version == .http1_0 {
                return .failure(.bad("Transfer-Encoding is not allowed in an HTTP/1.0 request"))
            }
            if framingFields.contentLength != nil {
                return .failure(.bad("a request must not carry both Content-Length and Transfer-Encoding"))
            }
            guard let last = codings.last, last.lowercasedASCII == "chunked" else {
                return .failure(.bad("the final transfer coding must be chunked"))
            }
            for coding in codings.dropLast() {
                if coding.lowercasedASCII == "chunked" {
                    return .failure(.bad("chunked is applied more than once"))
                }
                return .failure(
                    HTTPParseError(status: 501, message: "the transfer coding \"\(coding)\" is not supported")
                )
            }
            body = .chunked
        } else if let contentLength = framingFields.contentLength, contentLength > 0 {
            body = .length(contentLength)
        }
        return .success(
            Framing(body: body, expectContinue: expectContinue && pending.version == .http1_1 && body != .none)
        )
    }

    /// One field line `name: value` in `data[start..<end]` (line end excluded).
    static func parseField(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to end: Int
    ) -> Result<(name: String, value: String, nameEnd: Int), HTTPParseError> {
        if data[start] == .sp || data[start] == .htab {
            return .failure(.bad("a field line starts with whitespace (obsolete line folding is not accepted)"))
        }
        var i = start
        while i < end && data[i].isTokenChar { i += 1 }
        guard i > start, i < end, data[i] == .colon else {
            return .failure(.bad("a header field line is not \"Name: value\""))
        }
        let nameEnd = i
        var valueStart = i + 1
        while valueStart < end && (data[valueStart] == .sp || data[valueStart] == .htab) { valueStart += 1 }
        var valueEnd = end
        while valueEnd > valueStart && (data[valueEnd - 1] == .sp || data[valueEnd - 1] == .htab) { valueEnd -= 1 }
        for j in valueStart..<valueEnd {
            let b = data[j]
            if (b < 0x20 && b != .htab) || b == 0x7F {
                return .failure(.bad("a header field value holds a control character"))
            }
        }
        let name = fieldName(UnsafeRawBufferPointer(rebasing: data[start..<nameEnd]))
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: data[valueStart..<valueEnd]), as: UTF8.self)
        return .success((name: name, value: value, nameEnd: nameEnd))
    }

    /// The field name in `bytes`. The names on nearly every request, spelled as clients send
    /// them (capitalised or lower case), share one literal each instead of being decoded;
    /// so do the lower-case names of a push provider's requests (HTTP/2 also reads them here).
    package static func fieldName(_ bytes: UnsafeRawBufferPointer) -> String {
        switch bytes.count {
        case 4:
            if bytes.equals("Host") { return "Host" }
            if bytes.equals("host") { return "host" }
        case 6:
            if bytes.equals("Accept") { return "Accept" }
            if bytes.equals("accept") { return "accept" }
        case 10:
            if bytes.equals("User-Agent") { return "User-Agent" }
            if bytes.equals("user-agent") { return "user-agent" }
            if bytes.equals("Connection") { return "Connection" }
            if bytes.equals("apns-topic") { return "apns-topic" }
        case 12:
            if bytes.equals("content-type") { return "content-type" }
        case 13:
            if bytes.equals("If-None-Match") { return "If-None-Match" }
            if bytes.equals("if-none-match") { return "if-none-match" }
            if bytes.equals("apns-priority") { return "apns-priority" }
            if bytes.equals("authorization") { return "authorization" }
        case 14:
            if bytes.equals("apns-push-type") { return "apns-push-type" }
            if bytes.equals("content-length") { return "content-length" }
        case 15:
            if bytes.equals("Accept-Encoding") { return "Accept-Encoding" }
            if bytes.equals("accept-encoding") { return "accept-encoding" }
        default:
            break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `"12"` or a list of equal values (`"12, 12"`); nil otherwise.
    static func parseContentLength(_ value: String) -> Int? {
        var result: Int?
        for item in value.split(separator: ",", omittingEmptySubsequences: false) {
            let digits = item.trimmingOWS.utf8
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isDigit }) else { return nil }
            var n = 0
            for d in digits { n = n * 10 + Int(d - 48) }
            if let result, result != n { return nil }
            result = n
        }
        return result
    }

    /// `1a;name=value` in `data[start..<lf]`: the chunk size, extensions ignored.
    static func parseChunkSize(
        _ data: UnsafeRawBufferPointer,
        from start: Int,
        to lf: Int
    ) -> Result<Int, HTTPParseError> {
        let end = lf > start && data[lf - 1] == .cr ? lf - 1 : lf
        var i = start
        var size = 0
        while i < end, let digit = PercentDecoding.hex(data[i]) {
            if i - start >= 15 {
                return .failure(HTTPParseError(status: 413, message: "a chunk is larger than the body limit"))
            }
            size = size * 16 + Int(digit)
            i += 1
        }
        guard i > start else { return .failure(.bad("a chunk-size line does not start with a hexadecimal size")) }
        while i < end && (data[i] == .sp || data[i] == .htab) { i += 1 }
        guard i == end || data[i] == .semicolon else {
            return .failure(.bad("a chunk-size line holds something other than a size and extensions"))
        }
        for j in i..<end where data[j] < 0x20 && data[j] != .htab {
            return .failure(.bad("a chunk extension holds a control character"))
        }
        return .success(size)
    }
}

extension UInt8 {
    var isDigit: Bool { self >= 48 && self <= 57 }

    /// RFC 9110 tchar: the bytes a method or field name may hold.
    var isTokenChar: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 48...57:
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Byte-for-byte equality with a literal.
    func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        let p = text.utf8Start
        for i in 0..<count where self[i] != p[i] { return false }
        return true
    }

    /// ASCII case-insensitive equality with a lowercase literal.
    func equalsLowercased(_ lower: StaticString) -> Bool {
        guard count == lower.utf8CodeUnitCount else { return false }
        let p = lower.utf8Start
        for i in 0..<count {
            let b = self[i]
            let folded = b >= 65 && b <= 90 ? b | 0x20 : b
            if folded != p[i] { return false }
        }
        return true
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (RFC 9110 OWS).
    var trimmingOWS: Substring {
        var s = Substring(self)
        while let first = s.utf8.first, first == .sp || first == .htab { s = s.dropFirst() }
        while let last = s.utf8.last, last == .sp || last == .htab { s = s.dropLast() }
        return s
    }

    /// ASCII-only lowercasing: field tokens are ASCII, and this avoids Unicode tables.
    var lowercasedASCII: String {
        String(decoding: utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// The last request line and field section that parsed, and what they gave, for the parsers
/// that share it: a server's event loop gives one to all its connections, so a connection
/// holds no memo of its own (10,000 idle keep-alive connections each kept ~940 bytes when
/// every parser had its own), and clients that send the same request (a load generator's
/// connections, a fleet's polls of one check) hit it across connections. A hit depends on
/// the bytes alone, so sharing cannot change what a parser returns.
///
/// Not locked: the parsers sharing one must run on one thread at a time (one serial queue).
public final class HTTPHeadMemo: @unchecked Sendable {
    @exclusivity(unchecked) var line = RequestLineMemo()
    @exclusivity(unchecked) var section = FieldSectionMemo()

    public init() {}
}

/// The last field section that parsed, as it arrived, and what it gave: a
/// keep-alive client sends the same fields with every request (a polling SDK's Host,
/// User-Agent and If-None-Match), and giving the same fields again skips reading every line
/// and making every value's string (callgrind, a check with two fields: ~2,600 of ~15,000
/// instructions a request; ~3,600 with If-None-Match). The fields depend on the bytes alone
/// and the framing on the bytes and the HTTP version, so both are the key; only a section
/// that parsed is kept, and none over ``KeptBytes/maxBytes``.
struct FieldSectionMemo: Sendable {
    private var section = KeptBytes()
    private var version: HTTPVersion = .http1_1
    private(set) var fields: [HTTPField] = []
    private(set) var keepAlive = true
    private var kept = HTTPRequestParser.Framing(body: .none, expectContinue: false)

    /// The framing `section` parsed to last time on `version`, when it is the kept one.
    @inline(__always)
    func framing(for section: UnsafeRawBufferPointer, version: HTTPVersion) -> HTTPRequestParser.Framing? {
        guard version == self.version, self.section.holds(section) else { return nil }
        return kept
    }

    mutating func remember(
        _ section: UnsafeRawBufferPointer,
        version: HTTPVersion,
        fields: [HTTPField],
        keepAlive: Bool,
        framing: HTTPRequestParser.Framing
    ) {
        guard self.section.keep(section) else {
            self = FieldSectionMemo()
            return
        }
        self.version = version
        self.fields = fields
        self.keepAlive = keepAlive
        kept = framing
    }
}

/// The bytes a memo is keyed by, as they arrived: at most ``maxBytes`` of them, their storage
/// reused (a client whose bytes differ each time pays a copy, not an allocation).
struct KeptBytes: Sendable {
    static let maxBytes = 1024

    private var bytes: [UInt8] = []
    private var isKept = false

    /// Whether `other` is the kept bytes.
    @inline(__always)
    func holds(_ other: UnsafeRawBufferPointer) -> Bool {
        guard isKept, other.count == bytes.count else { return false }
        return bytes.withUnsafeBytes { Self.equal($0, other) }
    }

    /// Keeps `other`; false, keeping nothing, when it is over ``maxBytes``.
    mutating func keep(_ other: UnsafeRawBufferPointer) -> Bool {
        guard other.count <= Self.maxBytes else {
            self = KeptBytes()
            return false
        }
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: other)
        isKept = true
        return true
    }

    /// Equal-length buffers compared eight bytes a step.
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let count = a.count
        guard count > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        var i = 0
        while i + 8 <= count {
            if pa.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != pb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < count {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }
}

/// The last request line that parsed, as it arrived, and the method, target
/// and version it gave: a polling client asks for the same target every time, and giving the
/// same strings again skips checking every byte of the target and decoding it into a string
/// of its own (callgrind, a 63-byte check target: ~1,000 instructions a request). The line's
/// bytes are the whole key (the target's form is normalized from them alone); only a line
/// that parsed is kept, and none over ``KeptBytes/maxBytes``.
struct RequestLineMemo: Sendable {
    private var line = KeptBytes()
    private(set) var method = ""
    private(set) var target = ""
    private(set) var version: HTTPVersion = .http1_1

    /// Whether `line` is the kept one.
    @inline(__always)
    func holds(_ line: UnsafeRawBufferPointer) -> Bool { self.line.holds(line) }

    mutating func remember(_ line: UnsafeRawBufferPointer, method: String, target: String, version: HTTPVersion) {
        guard self.line.keep(line) else {
            self = RequestLineMemo()
            return
        }
        self.method = method
        self.target = target
        self.version = version
    }
}
