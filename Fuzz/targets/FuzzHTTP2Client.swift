// libFuzzer target: arbitrary server bytes into HTTP2ClientSession (the push gateway
// client must survive whatever a peer sends).
import HTTP
import HTTP2

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Client(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0, let client = try? HTTP2ClientSession(configuration: .init(maxResponseBodyBytes: 4096)) else {
        return 0
    }
    let chunk = Int(data[0] & 0x3F) + 1
    for index in 0..<3 {
        _ = try? client.submit(
            HTTPRequest(
                method: index == 1 ? "POST" : "GET",
                target: "/3/device/\(index)",
                headers: ["Host": "gateway"],
                body: index == 1 ? Array("{}".utf8) : []
            )
        )
    }
    var output: [UInt8] = []
    client.drainOutput(into: &output)
    var offset = 1
    while offset < size {
        let end = min(size, offset + chunk)
        _ = client.feed(UnsafeRawBufferPointer(start: data + offset, count: end - offset))
        offset = end
        output.removeAll(keepingCapacity: true)
        client.drainOutput(into: &output)
        _ = client.takeEvents()
        if client.isFinished { break }
    }
    return 0
}
