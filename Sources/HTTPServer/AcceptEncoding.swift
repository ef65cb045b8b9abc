import HTTP

/// An `Accept-Encoding` header read per RFC 9110 §12.5.3: codings with q-values, `*` for
/// any coding not named, `q=0` to refuse.
///
/// ```swift
/// AcceptEncoding("gzip, deflate, br").allowsGzip          // true
/// AcceptEncoding("*;q=0.5, gzip;q=0").allowsGzip          // false
/// AcceptEncoding(nil).allowsGzip                          // false: no header, no coding
/// ```
public struct AcceptEncoding: Sendable, Equatable {
    /// Lowercased coding names with their weights (0...1), in header order.
    public let entries: [(coding: String, quality: Double)]

    public init(_ header: String?) {
        guard let header else {
            entries = []
            return
        }
        entries = header.split(separator: ",").compactMap(Self.parseEntry)
    }

    /// The weight the client gives `coding` ("x-gzip" counts as "gzip"); nil when neither it
    /// nor `*` is listed.
    public func quality(of coding: String) -> Double? {
        let wanted = coding.lowercased()
        if let named = entries.first(where: { $0.coding == wanted || (wanted == "gzip" && $0.coding == "x-gzip") }) {
            return named.quality
        }
        return entries.first { $0.coding == "*" }?.quality
    }

    /// Whether to send gzip: it has a weight above zero, not below an explicitly
    /// preferred `identity`. A missing or empty header means identity only.
    public var allowsGzip: Bool {
        guard let gzip = quality(of: "gzip"), gzip > 0 else { return false }
        if let identity = entries.first(where: { $0.coding == "identity" }), identity.quality > gzip { return false }
        return true
    }

    public static func == (lhs: AcceptEncoding, rhs: AcceptEncoding) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.coding == $1.coding && $0.quality == $1.quality }
    }

    /// "gzip;q=0.8" → ("gzip", 0.8); nil for an empty item or a malformed weight.
    private static func parseEntry(_ item: Substring) -> (coding: String, quality: Double)? {
        let parts = item.split(separator: ";", omittingEmptySubsequences: false)
        let coding = parts[0].trimmingSpaces().lowercased()
        guard !coding.isEmpty else { return nil }
        var quality = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { continue }
            guard let q = parseQValue(pair[1].trimmingSpaces()) else { return nil }
            quality = q
        }
        return (coding, quality)
    }

    /// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
    private static func parseQValue(_ text: Substring) -> Double? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        guard bytes.count > 1 else { return Double(first - 48) }
        guard bytes[1] == UInt8(ascii: "."), bytes.count <= 5,
            bytes[2...].allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return nil }
        var value = Double(first - 48)
        var scale = 0.1
        for digit in bytes[2...] {
            value += Double(digit - 48) * scale
            scale /= 10
        }
        return value > 1 ? nil : value
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
