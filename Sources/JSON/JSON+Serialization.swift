extension JSON {
    /// Compact JSON text. Integral numbers print without a fraction (`60`, not `60.0`).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON for people reading a terminal (two spaces, trailing newline).
    public func prettySerialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(into: &out, indent: 2, level: 0)
        out.append(0x0A)
        return out
    }

    public var serializedString: String { String(decoding: serialized(), as: UTF8.self) }

    /// Appends the compact text ``serialized()`` gives to `out`: for writers that emit a fixed
    /// shape around values instead of building the whole value first.
    public func write(into out: inout [UInt8]) {
        write(into: &out, indent: nil, level: 0)
    }

    func write(into out: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 {
                JSON.writeInteger(Int64(n), into: &out)
            } else {
                out.append(contentsOf: String(n).utf8)
            }
        case .string(let s): JSON.writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            if !items.isEmpty { newline(&out, indent, level) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, pair) in object.pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                JSON.writeString(pair.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(0x20) }
                pair.value.write(into: &out, indent: indent, level: level + 1)
            }
            if object.count > 0 { newline(&out, indent, level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * level))
    }

    /// Appends `value`'s decimal digits as ``serialized()`` writes an integral number, straight
    /// into `out` (formatting through a String cost a buffer and a copy per number).
    public static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // Lowest digit first, then the digits turned around in place.
        let digitsStart = out.count
        var magnitude = value.magnitude
        repeat {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude != 0
        out[digitsStart...].reverse()
    }

    /// Appends `s` as a JSON string literal, escaped exactly as ``serialized()`` writes it:
    /// for writers that emit a fixed shape byte by byte instead of building a value.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Walked as one buffer, not byte by byte through the string's index: most strings (keys,
        // ids, tokens, times) need no escape and are copied whole; an ETag's quotes do.
        var text = s
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                out.append(contentsOf: bytes)
                return
            }
            for b in bytes {
                switch b {
                case 0x22:
                    out.append(0x5C)
                    out.append(0x22)
                case 0x5C:
                    out.append(0x5C)
                    out.append(0x5C)
                case 0x0A:
                    out.append(0x5C)
                    out.append(UInt8(ascii: "n"))
                case 0x0D:
                    out.append(0x5C)
                    out.append(UInt8(ascii: "r"))
                case 0x09:
                    out.append(0x5C)
                    out.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    out.append(contentsOf: [
                        0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 15)],
                    ])
                default: out.append(b)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
