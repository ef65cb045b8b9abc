// libFuzzer target: arbitrary bytes as a scenario file. The parser must either return a
// scenario or errors that each carry a message and a position inside the file, never crash.
import Glibc
import ScenarioLanguage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenarioParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try Scenario.parse(bytes, file: "fuzz.yaml")
    } catch {
        guard !error.errors.isEmpty else {
            fputs("a refusal without errors\n", stderr)
            abort()
        }
        for e in error.errors where e.message.isEmpty {
            fputs("an error without a message: \(e)\n", stderr)
            abort()
        }
    }
    return 0
}
