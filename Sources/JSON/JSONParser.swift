/// Why a byte sequence is not JSON, and where: enough for a 400 a person can act on.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Byte offset of the problem in the input.
    public var offset: Int
    public var line: Int
    public var column: Int

    public var description: String { "\(message) at line \(line), column \(column)" }
}

extension JSON {
    /// Deepest nesting accepted, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 256

    /// Parses one JSON text (RFC 8259): the whole input, surrounding white space allowed.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSON {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSON {
        try parse(Array(text.utf8))
    }
}

struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw error("empty body, expected a JSON value") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describe(bytes[index])) after the JSON value") }
        return value
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let at = min(offset ?? index, bytes.count)
        var line = 1
        var column = 1
        for b in bytes[0..<at] {
            if b == 10 {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(message: message, offset: at, line: line, column: column)
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONSyntaxError) -> JSON {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describe(bytes[index])), expected a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = index
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for b in w {
            guard index < bytes.count, bytes[index] == b else {
                throw error("invalid literal, expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSON.maximumDepth { throw error("nesting deeper than \(JSON.maximumDepth) levels") }
    }

    mutating func parseObject() throws(JSONSyntaxError) -> JSON {
        try enter()
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        // Grown once for most objects (an answer's 7 members), not at 1, 2, 4 and 8.
        object.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(index < bytes.count ? "expected a quoted member name" : "unexpected end of input in object")
            }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            // A repeated name is refused, as YAML refuses it: "last one wins" would let a config
            // or an admin body say two things and mean one without anyone noticing.
            guard object.insertIfAbsent(key, try parseValue()) else {
                throw error("duplicate member name \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            }
            throw error("expected ',' or '}' in object, found \(describe(bytes[index]))")
        }
        depth -= 1
        return .object(object)
    }

    mutating func parseArray() throws(JSONSyntaxError) -> JSON {
        try enter()
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                break
            }
            throw error("expected ',' or ']' in array, found \(describe(bytes[index]))")
        }
        depth -= 1
        return .array(items)
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> JSON {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 48 && bytes[i] <= 57 }
        guard isDigit(index) else { throw error("invalid number", at: start) }
        let digitsStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error("invalid number: leading zero", at: start) }
        } else {
            while isDigit(index) { index += 1 }
        }
        // An integer of up to 15 digits is exact as a Double: summed here, not formatted as text
        // and read back (a lifetime, a count, a status: most numbers are such).
        let integerEnd = index
        let isInteger =
            integerEnd - digitsStart <= 15
            && (index >= bytes.count
                || (bytes[index] != UInt8(ascii: ".") && bytes[index] != UInt8(ascii: "e")
                    && bytes[index] != UInt8(ascii: "E")))
        if isInteger {
            var value: Int64 = 0
            for i in digitsStart..<integerEnd { value = value * 10 + Int64(bytes[i] - 48) }
            return .number(negative ? -Double(value) : Double(value))
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw error("invalid number: digit expected after '.'", at: start) }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard isDigit(index) else { throw error("invalid number: digit expected in exponent", at: start) }
            while isDigit(index) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
        return .number(value)
    }

    mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var scalars: [UInt8] = []
        var runStart = index
        // Every byte of the string or'ed: below 0x80, it is ASCII, which is valid UTF-8 as it
        // stands (String(validating:) cost ~1k instructions a key; most keys and values are ASCII).
        var bits: UInt8 = 0
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let end = index
                index += 1
                if scalars.isEmpty {
                    // No escape met (most keys and values): read where it stands, not copied first.
                    let text = bytes.withUnsafeBufferPointer { all in
                        let run = UnsafeBufferPointer(rebasing: all[runStart..<end])
                        return bits < 0x80
                            ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                    }
                    guard let text else { throw error("string is not valid UTF-8", at: start) }
                    return text
                }
                scalars.append(contentsOf: bytes[runStart..<end])
                break
            }
            bits |= c
            if c < 0x20 { throw error("control character in string; escape it") }
            if c == UInt8(ascii: "\\") {
                scalars.append(contentsOf: bytes[runStart..<index])
                index += 1
                guard index < bytes.count else { throw error("unterminated escape", at: start) }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate in \\u escape") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw error("invalid low surrogate in \\u escape")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    if !scalar.isASCII { bits |= 0x80 }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: index - 2)
                }
                runStart = index
                continue
            }
            index += 1
        }
        if bits < 0x80 { return String(decoding: scalars, as: UTF8.self) }
        guard let s = String(validating: scalars, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: start)
        }
        return s
    }
}
