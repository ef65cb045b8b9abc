import Glibc
import HTTP
import HTTPServer
import Testing

@Suite struct RequestLogWriterTests {
    func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func writesEachLineInOrder() {
        var pipeFDs: [Int32] = [0, 0]
        #expect(pipe(&pipeFDs) == 0)
        let writer = RequestLogWriter(fd: pipeFDs[1])
        for i in 0 ..< 100 {
            writer.sink(RequestLogEntry(method: "GET", target: "/\(i)", status: 200, bytes: i, microseconds: 5, version: .http1_1))
        }
        writer.flush()
        close(pipeFDs[1])
        let lines = readAll(pipeFDs[0]).split(separator: "\n")
        close(pipeFDs[0])
        #expect(lines.count == 100)
        #expect(lines.first == "GET /0 200 0B 5us")
        #expect(lines.last == "GET /99 200 99B 5us")
    }

    @Test func dropsAndCountsLinesBeyondItsBound() {
        var pipeFDs: [Int32] = [0, 0]
        #expect(pipe(&pipeFDs) == 0)
        // Room for two lines only while the writer has not run yet.
        let writer = RequestLogWriter(fd: pipeFDs[1], maxPendingBytes: 12)
        writer.write("line 1")
        writer.write("line 2")
        writer.write("line 3 is too long to fit")
        writer.flush()
        close(pipeFDs[1])
        let text = readAll(pipeFDs[0])
        close(pipeFDs[0])
        #expect(text.hasPrefix("line 1\n"))
        #expect(text.contains("line 3") == false)
        #expect(text.contains("request log lines dropped"))
    }
}
