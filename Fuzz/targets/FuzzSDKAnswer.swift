// libFuzzer target: arbitrary bytes as a check answer into the SDK's answer parser. It must
// never crash, and reading the same bytes twice gives the same answer (no hidden state).
import Glibc
import LerixSDK

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDKAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let answer = try? CheckAnswer.parse(bytes) else { return 0 }
    guard (try? CheckAnswer.parse(bytes)) == answer else {
        fputs("two reads of one answer differ\n", stderr)
        abort()
    }
    _ = answer.isComplete
    return 0
}
