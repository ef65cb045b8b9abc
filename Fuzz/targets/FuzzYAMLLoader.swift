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
    visit(document.json, pointer: "", document)
    return 0
}

private func visit(_ value: JSON, pointer: String, _ document: YAMLDocument) {
    let mark = document.mark(for: pointer)
    guard mark.line >= 1, mark.column >= 1 else {
        fputs("bad mark for \(pointer)\n", stderr)
        abort()
    }
    switch value {
    case .array(let items):
        for (i, item) in items.enumerated() { visit(item, pointer: YAMLDocument.pointer(pointer, i), document) }
    case .object(let object):
        for (key, child) in object { visit(child, pointer: YAMLDocument.pointer(pointer, key), document) }
    default: break
    }
}
