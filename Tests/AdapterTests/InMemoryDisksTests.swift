import Adapter
import Foundation
import JSON
import LerixSDK
import Testing

/// `AdapterHost.Options.disksInMemory`: the in-process runner's devices keep `config.storage`
/// in memory, one disk per folder path, shared as a folder on disk would be.
@Suite struct InMemoryDisksTests {
    @Test func devicesNamingOneFolderShareOneDiskAndNoFileIsWritten() {
        let backend = Backend()
        var options = AdapterHost.Options()
        options.timeMoved = { instant in backend.update { $0.now = instant } }
        options.disksInMemory = true
        let driver = Driver(
            AdapterHost(network: TransportNetwork(InMemoryTransport { backend.answer($0) }), options: options)
        )
        let folder = "/nonexistent-lerix-disk/\(UUID().uuidString)"  // cannot be made: a file write would fail
        #expect(driver.create("a", storage: folder)["ok"] == true)
        driver.send("launch", [("device", "a")])
        let etag = driver.state("a")["etag"]
        #expect(etag?.stringValue?.isEmpty == false)
        backend.update { $0.down = true }
        #expect(driver.create("b", storage: folder)["ok"] == true)
        driver.send("launch", [("device", "b")])
        #expect(driver.state("b")["etag"] == etag, "b applied the answer a saved on the shared disk")
        #expect(driver.state("b")["failed_checks"] == 1)
        #expect(driver.create("c", storage: folder + "-other")["ok"] == true)
        driver.send("launch", [("device", "c")])
        #expect(driver.state("c")["etag"] == .null, "another folder is another disk")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}
