import Testing

@testable import Persistence

/// The 100-byte header probe that decides, before SQLite opens anything, whether a file is ours.
@Suite struct StateFileHeaderTests {
    private func header(applicationID: UInt32, userVersion: UInt32) -> [UInt8] {
        var bytes = StateSchema.magic + [UInt8](repeating: 0, count: 84)
        for (offset, value) in [(60, userVersion), (68, applicationID)] {
            for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
        }
        return bytes
    }

    @Test func readsTheApplicationIdAndSchemaVersionBigEndian() {
        #expect(
            StateFileHeader.inspect(header(applicationID: StateSchema.applicationID, userVersion: 3))
                == .sqlite(applicationID: 0x4C52_584D, userVersion: 3)
        )
    }

    @Test func anEmptyFileIsEmptyAndAnythingElseWithoutTheMagicIsNotSQLite() {
        #expect(StateFileHeader.inspect([]) == .empty)
        #expect(
            StateFileHeader.inspect(Array("SQLite format 2\0".utf8) + [UInt8](repeating: 0, count: 84)) == .notSQLite
        )
        #expect(StateFileHeader.inspect(Array(header(applicationID: 1, userVersion: 1).prefix(99))) == .notSQLite)
    }
}
