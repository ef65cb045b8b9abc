/// Parsing `http[s]://host[:port][/path][?query][#fragment]` (RFC 3986 §3, the http(s) schemes of
/// RFC 9110 §4.2), byte by byte, with an error that says what to change.
extension HTTPURL {
    /// Parses `text`; spaces and line ends around it are ignored, a fragment is dropped (it is
    /// never sent). The error names the URL and what is wrong with it.
    public init(parsing text: String) throws(HTTPURLError) {
        func failure(_ message: String) -> HTTPURLError { HTTPURLError(url: text, message: message) }
        // An array slice: integer indices, no string index arithmetic per byte.
        let all = Array(text.utf8)
        var bytes = all[...]
        while let b = bytes.first, b.isURLWhitespace { bytes = bytes.dropFirst() }
        while let b = bytes.last, b.isURLWhitespace { bytes = bytes.dropLast() }

        let scheme: Scheme
        if bytes.startsWithLowercased("https://") {
            scheme = .https
            bytes = bytes.dropFirst(8)
        } else if bytes.startsWithLowercased("http://") {
            scheme = .http
            bytes = bytes.dropFirst(7)
        } else {
            throw failure("expected http:// or https:// followed by a host, such as http://127.0.0.1:8080")
        }

        let authorityEnd =
            bytes.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        let authority = bytes[..<authorityEnd]
        var rest = bytes[authorityEnd...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        if authority.contains(UInt8(ascii: "@")) {
            throw failure("credentials in the URL (user@host) are not supported")
        }

        var hostBytes: ArraySlice<UInt8>
        var portBytes: ArraySlice<UInt8>?
        var isIPv6 = false
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw failure("the IPv6 address has no closing ']'")
            }
            hostBytes = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if let colon = after.first {
                guard colon == UInt8(ascii: ":") else {
                    throw failure("after the IPv6 address ']' only ':port' may follow")
                }
                portBytes = after.dropFirst()
            }
            isIPv6 = true
        } else if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[..<colon]
            portBytes = authority[authority.index(after: colon)...]
            if portBytes?.contains(UInt8(ascii: ":")) == true {
                throw failure("an IPv6 address goes in brackets, such as http://[::1]:8080")
            }
        } else {
            hostBytes = authority
        }

        guard !hostBytes.isEmpty else { throw failure("the URL has no host") }
        if isIPv6 {
            if let problem = Self.ipv6Problem(hostBytes) { throw failure(problem) }
        } else if let bad = hostBytes.first(where: { !$0.isHostNameByte }) {
            throw failure(
                bad >= 0x80
                    ? "the host holds non-ASCII letters: give its ASCII (punycode, xn--...) form"
                    : "the host holds \(Self.describe(bad)), which a host name cannot"
            )
        }

        var port = scheme.defaultPort
        if let portBytes, !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                throw failure("the port must be a number from 1 to 65535")
            }
            port = portBytes.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard (1...65535).contains(port) else { throw failure("the port must be a number from 1 to 65535") }
        }

        var pathBytes = rest
        var queryBytes: ArraySlice<UInt8>?
        if let q = rest.firstIndex(of: UInt8(ascii: "?")) {
            pathBytes = rest[..<q]
            queryBytes = rest[rest.index(after: q)...]
        }
        if let problem = Self.encodingProblem(pathBytes, part: "path")
            ?? queryBytes.flatMap({ Self.encodingProblem($0, part: "query") })
        {
            throw failure(problem)
        }
        self.init(
            scheme: scheme,
            host: String(decoding: hostBytes, as: UTF8.self),
            port: port,
            path: pathBytes.isEmpty ? "/" : String(decoding: pathBytes, as: UTF8.self),
            query: queryBytes.map { String(decoding: $0, as: UTF8.self) }
        )
    }

    /// Why `bytes` cannot go into a request target as they are (the server's own parser refuses
    /// the same bytes), or nil.
    static func encodingProblem(_ bytes: ArraySlice<UInt8>, part: String) -> String? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let b = bytes[index]
            if b <= 0x20 || b >= 0x7F {
                return "the \(part) holds \(describe(b)), which must be percent-encoded (a space is %20)"
            }
            if b == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first < bytes.endIndex, bytes.index(after: first) < bytes.endIndex,
                    PercentDecoding.hex(bytes[first]) != nil,
                    PercentDecoding.hex(bytes[bytes.index(after: first)]) != nil
                else {
                    return "the \(part) holds a '%' not followed by two hexadecimal digits (a literal '%' is %25)"
                }
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// Why the text between brackets is no IPv6 address (RFC 3986 §3.2.2 IPv6address), or nil.
    static func ipv6Problem(_ bytes: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let malformed = "'[\(text)]' is not an IPv6 address"
        if bytes.contains(UInt8(ascii: "%")) { return "an IPv6 zone ('%') is not supported in a URL" }
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return malformed }
        var groups = 0
        for (h, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (i, part) in parts.enumerated() {
                let isLast = h == halves.count - 1 && i == parts.count - 1
                if isLast && part.contains(".") {
                    guard isIPv4(part) else { return malformed }
                    groups += 2
                } else {
                    guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy({ PercentDecoding.hex($0) != nil })
                    else { return malformed }
                    groups += 1
                }
            }
        }
        return halves.count == 2 ? (groups <= 7 ? nil : malformed) : (groups == 8 ? nil : malformed)
    }

    static func isIPv4(_ text: Substring) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4
            && octets.allSatisfy { octet in
                (1...3).contains(octet.utf8.count) && octet.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
                    && Int(octet).map { $0 <= 255 } == true
            }
    }

    /// A byte named for an error message.
    static func describe(_ b: UInt8) -> String {
        switch b {
        case 0x20: return "a space"
        case 0x09: return "a tab"
        case 0x00..<0x20, 0x7F: return "a control character"
        case 0x80...: return "a non-ASCII character"
        default: return "'\(Character(Unicode.Scalar(b)))'"
        }
    }
}

extension UInt8 {
    fileprivate var isURLWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }

    /// Letters, digits, `-`, `.`, `_`, `~`: a DNS name or an IPv4 literal (RFC 3986 unreserved).
    fileprivate var isHostNameByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 48...57,
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension Collection<UInt8> {
    /// ASCII case-insensitive prefix test against a lowercase literal.
    fileprivate func startsWithLowercased(_ lower: String) -> Bool {
        var it = makeIterator()
        for expected in lower.utf8 {
            guard let b = it.next() else { return false }
            let folded = b >= 65 && b <= 90 ? b | 0x20 : b
            if folded != expected { return false }
        }
        return true
    }
}
