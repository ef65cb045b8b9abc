import Dispatch
import Glibc
import HTTP
import Synchronization
import Testing

@testable import HTTPServer

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
        for i in 0..<100 {
            var line: [UInt8] = []
            RequestLogEntry(method: "GET", target: "/\(i)", status: 200, bytes: i, microseconds: 5, version: .http1_1)
                .append(to: &line)
            line.withUnsafeBytes { writer.write(lines: $0) }
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

    @Test func dropsAWholeBatchThatDoesNotFitAndCountsItsLines() {
        var pipeFDs: [Int32] = [0, 0]
        #expect(pipe(&pipeFDs) == 0)
        let writer = RequestLogWriter(fd: pipeFDs[1], maxPendingBytes: 16)
        Array("a 1\nb 2\n".utf8).withUnsafeBytes { writer.write(lines: $0) }
        Array("c 3\nd 4\ne 5\n".utf8).withUnsafeBytes { writer.write(lines: $0) }
        writer.flush()
        close(pipeFDs[1])
        let text = readAll(pipeFDs[0])
        close(pipeFDs[0])
        // Either the first batch was written before the second came (both fit), or the
        // second did not fit beside it: never a part of a batch.
        if text.contains("c 3") {
            #expect(text.hasPrefix("a 1\nb 2\nc 3\nd 4\ne 5\n"))
        } else {
            #expect(text.hasPrefix("a 1\nb 2\n"))
            #expect(text.contains("(3 request log lines dropped"))
        }
    }
}

@Suite struct RequestLogEntryTests {
    @Test func formatsMethodTargetStatusBytesAndMicroseconds() {
        let entry = RequestLogEntry(
            method: "GET",
            target: "/v1/projects/demo/release-control?platform=ios",
            status: 304,
            bytes: 0,
            microseconds: 1234,
            version: .http1_1
        )
        var bytes: [UInt8] = []
        entry.append(to: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "GET /v1/projects/demo/release-control?platform=ios 304 0B 1234us\n"
        )
        #expect(entry.line == "GET /v1/projects/demo/release-control?platform=ios 304 0B 1234us")
    }

    @Test func aDroppedConnectionShowsResetAndLargeNumbersStayWhole() {
        let entry = RequestLogEntry(
            method: "POST",
            target: "/x",
            status: nil,
            bytes: 1_234_567_890,
            microseconds: 99,
            version: .http2
        )
        #expect(entry.line == "POST /x reset 1234567890B 99us")
        #expect(
            RequestLogEntry(
                method: "GET",
                target: "/",
                status: 200,
                bytes: 100,
                microseconds: 10,
                version: .http1_1
            ).line == "GET / 200 100B 10us"
        )
    }
}

@Suite struct RequestLogBatchTests {
    /// Counts hand-overs and keeps their lines.
    final class CountingSink: RequestLogSink {
        private let batches = Mutex<[String]>([])
        func write(lines: UnsafeRawBufferPointer) {
            let text = String(decoding: lines, as: UTF8.self)
            batches.withLock { $0.append(text) }
        }
        var handedOver: [String] { batches.withLock { $0 } }
    }

    @Test func linesOfOneLoopTurnAreHandedOverTogetherAfterIt() {
        let queue = DispatchQueue(label: "test.loop")
        let sink = CountingSink()
        let batch = RequestLogBatch(sink: sink, queue: queue)
        queue.sync {
            for i in 0..<3 {
                batch.record(
                    RequestLogEntry(
                        method: "GET",
                        target: "/\(i)",
                        status: 200,
                        bytes: 2,
                        microseconds: 7,
                        version: .http1_1
                    )
                )
            }
            // Nothing leaves while the loop is still busy with its turn.
            #expect(sink.handedOver.isEmpty)
        }
        queue.sync {}
        #expect(sink.handedOver == ["GET /0 200 2B 7us\nGET /1 200 2B 7us\nGET /2 200 2B 7us\n"])
        queue.sync {
            batch.record(
                RequestLogEntry(method: "GET", target: "/3", status: 404, bytes: 0, microseconds: 1, version: .http1_1)
            )
        }
        queue.sync {}
        #expect(sink.handedOver.count == 2)
        #expect(sink.handedOver.last == "GET /3 404 0B 1us\n")
    }
}
