import Clock
import JSON
import ReleaseControl

/// The check answer's state fields, written straight to bytes: the same text as building the
/// JSON value and serializing it (`Tests/MockServerTests/ServedAnswerBytesTests.swift` holds
/// that reference and compares), without the intermediate tree, because every cache miss of
/// the hot path comes here.
extension Evaluation {
    /// `"required_update":…,"optional_update":…,"maintenance":[…],"sdk_switch":[…]}`: the
    /// state object without its opening brace.
    func writeStateFields(into out: inout [UInt8]) {
        out.append(contentsOf: #""required_update":"#.utf8)
        if let required = requiredUpdate {
            Self.field("rule", first: true, into: &out)
            JSON.writeString(required.rule, into: &out)
            Self.field("below", into: &out)
            JSON.writeString(required.update.below.text, into: &out)
            Self.field("store_url", into: &out)
            Self.write(required.update.storeURL, into: &out)
            Self.field("message", into: &out)
            Self.write(required.update.message, into: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","optional_update":"#.utf8)
        if let optional = optionalUpdate {
            Self.field("rule", first: true, into: &out)
            JSON.writeString(optional.rule, into: &out)
            Self.field("kind", into: &out)
            out.append(contentsOf: (optional.becomesRequiredOn == nil ? #""optional""# : #""recommended""#).utf8)
            Self.field("below", into: &out)
            JSON.writeString(optional.update.below.text, into: &out)
            Self.field("store_url", into: &out)
            Self.write(optional.update.storeURL, into: &out)
            Self.field("message", into: &out)
            Self.write(optional.update.message, into: &out)
            Self.field("becomes_required_on", into: &out)
            Self.write(optional.becomesRequiredOn?.rfc3339, into: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","maintenance":["#.utf8)
        for (i, w) in maintenance.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            Self.field("rule", first: true, into: &out)
            JSON.writeString(w.rule, into: &out)
            Self.field("starts_at", into: &out)
            JSON.writeString(w.window.startsAt.rfc3339, into: &out)
            Self.field("ends_at", into: &out)
            JSON.writeString(w.window.endsAt.rfc3339, into: &out)
            Self.field("message", into: &out)
            Self.write(w.window.message, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"sdk_switch":["#.utf8)
        for (i, s) in sdkSwitches.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            Self.field("rule", first: true, into: &out)
            JSON.writeString(s.rule, into: &out)
            Self.field("modules", into: &out)
            out.append(UInt8(ascii: "["))
            for (m, module) in s.sdkSwitch.modules.enumerated() {
                if m > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(module.rawValue, into: &out)
            }
            out.append(UInt8(ascii: "]"))
            Self.field("ends_at", into: &out)
            JSON.writeString(s.sdkSwitch.endsAt.rfc3339, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
    }

    /// `{"name":` for the first field of an object, `,"name":` for the others.
    private static func field(_ name: StaticString, first: Bool = false, into out: inout [UInt8]) {
        out.append(UInt8(ascii: first ? "{" : ","))
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: #"":"#.utf8)
    }

    private static func write(_ text: String?, into out: inout [UInt8]) {
        if let text { JSON.writeString(text, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }
}
