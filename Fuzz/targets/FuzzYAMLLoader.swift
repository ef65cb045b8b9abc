// libFuzzer target: arbitrary bytes into the YAML loader (libyaml events -> JSON values with
// marks). Whatever loads must be plain JSON (it serializes and parses back the same), and
// every node's position must be found.
import Glibc
import JSON
import YAML

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYAMLLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let document = try? YAML.parse(bytes) else { return 0 }
    let text = document.json.serialized()
    guard let again = try? JSON.parse(text), again == document.json else {
        fputs("the loaded value does not survive JSON: \(String(decoding: text, as: UTF8.self))\n", stderr)
        abort()
    }
    visit(document.json, pointer: "", place: document.root, document)
    return 0
}

/// Every node has a position; one found by walking places is the one its JSON Pointer names.
private func visit(_ value: JSON, pointer: String, place: YAMLDocument.Place?, _ document: YAMLDocument) {
    let mark = document.mark(for: pointer)
    guard mark.line >= 1, mark.column >= 1 else {
        fputs("bad mark for \(pointer)\n", stderr)
        abort()
    }
    if let place, document.mark(at: place) != mark || document.keyMark(at: place) != document.keyMark(for: pointer) {
        fputs("the place and the pointer \(pointer) disagree\n", stderr)
        abort()
    }
    switch value {
    case .array(let items):
        for (i, item) in items.enumerated() {
            let child = place.flatMap { document.child(of: $0, index: i) }
            visit(item, pointer: YAMLDocument.pointer(pointer, i), place: child, document)
        }
    case .object(let object):
        for (key, item) in object {
            let child = place.flatMap { document.child(of: $0, key: key) }
            visit(item, pointer: YAMLDocument.pointer(pointer, key), place: child, document)
        }
    default: break
    }
}
