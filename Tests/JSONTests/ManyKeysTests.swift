import JSON
import TestSupport
import Testing

/// Objects with many keys cost linear time to parse, build and read (issue 12, point 3: a
/// 110k-key body once held an event loop for 80 s because every insert searched the keys).
@Suite struct ManyKeysTests {
    static func objectText(keys: Int) -> [UInt8] {
        var text = "{"
        text.reserveCapacity(keys * 16)
        for i in 0..<keys {
            if i > 0 { text += "," }
            text += "\"key-\(i)\":\(i)"
        }
        return Array((text + "}").utf8)
    }

    @Test func aHundredTenThousandKeyObjectParsesInLinearTime() throws {
        let small = Self.objectText(keys: 6_875)
        let large = Self.objectText(keys: 110_000)
        var parsed = JSON.null
        let growth = try ScalingProbe.growth(
            small: { _ = try JSON.parse(small) },
            large: { parsed = try JSON.parse(large) }
        )
        #expect(parsed.objectValue?.count == 110_000)
        #expect(parsed["key-0"] == 0)
        #expect(parsed["key-109999"] == 109_999)
        #expect(parsed.objectValue?.keys.last == "key-109999")
        // 16× the keys: about 16× (up to ~30× with cache effects) when linear, over 256× when
        // quadratic (measured: 273× before the fix); 64 is the geometric middle.
        #expect(growth < 64, "16× the keys cost \(growth)× the CPU time")
    }

    @Test func buildingAndReadingABigObjectByKeyIsLinear() {
        func build(_ n: Int) {
            var object = JSONObject()
            for i in 0..<n { object["k\(i)"] = .number(Double(i)) }
            for i in stride(from: 0, to: n, by: 7) { precondition(object["k\(i)"] == .number(Double(i))) }
        }
        let growth = ScalingProbe.growth(small: { build(4_000) }, large: { build(64_000) })
        #expect(growth < 64, "16× the keys cost \(growth)× the CPU time")
    }

    @Test func duplicateKeysKeepTheLastValueInTheFirstPlaceAtAnySize() throws {
        for size in [3, 40] {
            let pairs: [(String, JSON)] =
                [("dup", 1)] + (0..<size).map { ("k\($0)", JSON.number(Double($0))) } + [("dup", 2)]
            let object = JSONObject(pairs)
            #expect(object.count == size + 1)
            #expect(object.keys.first == "dup")
            #expect(object["dup"] == 2)
        }
    }

    @Test func aParseRefusesARepeatedKeyAtAnySize() {
        for size in [3, 40] {
            var text = "{\"dup\":1"
            for i in 0..<size { text += ",\"k\(i)\":\(i)" }
            text += ",\"dup\":2}"
            #expect(throws: JSONSyntaxError.self) { try JSON.parse(text) }
        }
    }

    @Test func removingKeysKeepsOrderAndLookupsRight() {
        var object = JSONObject((0..<30).map { ("k\($0)", JSON.number(Double($0))) })
        for i in stride(from: 0, to: 30, by: 2) { object["k\(i)"] = nil }
        #expect(object.keys == stride(from: 1, to: 30, by: 2).map { "k\($0)" })
        for i in 0..<30 { #expect(object["k\(i)"] == (i % 2 == 1 ? .number(Double(i)) : nil)) }
        object["k0"] = "back"
        #expect(object.keys.last == "k0")
        #expect(object["k0"] == "back")
        // Equality is about pairs in order, not how a value was built.
        #expect(object == JSONObject(object.pairs.map { ($0.key, $0.value) }))
    }
}
