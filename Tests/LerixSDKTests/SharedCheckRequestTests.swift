import Clock
import Foundation
import JSON
import LerixSDK
import Testing

/// Instances with one configuration share their check URL and request (a fleet's devices of a
/// class: one warm copy, not one a device), and an instance never sends another's: a different
/// configuration or ETag builds its own.
@Suite(.serialized) struct SharedCheckRequestTests {
    static let now = Instant(rfc3339: "2026-12-02T11:00:00.000Z") ?? Instant(millisecondsSinceEpoch: 0)

    static func configuration(platform: Platform = .ios, version: String = "2.3.0") throws -> LerixConfiguration {
        LerixConfiguration(
            baseURL: try #require(URL(string: "http://lerix.test:8080")),
            project: "demo",
            platform: platform,
            appVersion: version
        )
    }

    /// The check request a launch sends with `etag` saved (nil: none).
    static func launchCheck(_ config: LerixConfiguration, etag: String? = nil) throws -> TransportRequest {
        var saved = SavedAnswer()
        saved.etag = etag
        saved.appVersion = config.appVersion  // the saved answer is this version's: its ETag is sent
        var machine = ReleaseControlMachine(configuration: config, saved: saved)
        let sent = machine.handle(.launch, now: now).compactMap { action -> TransportRequest? in
            guard case .send(let request, .check) = action else { return nil }
            return request
        }
        return try #require(sent.first)
    }

    static func storage(of string: String) -> UnsafeRawPointer? {
        var copy = string
        return copy.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func twoInstancesOfOneConfigurationShareOneURL() throws {
        let first = try Self.launchCheck(Self.configuration())
        let second = try Self.launchCheck(Self.configuration())
        #expect(first == second)
        #expect(
            first.url
                == "http://lerix.test:8080/v1/projects/demo/release-control?platform=ios&version=2.3.0&sdk=swift&sdk_version=1.0.0"
        )
        #expect(Self.storage(of: first.url) == Self.storage(of: second.url))
    }

    @Test func anotherConfigurationGetsItsOwnURL() throws {
        let ios = try Self.launchCheck(Self.configuration())
        let android = try Self.launchCheck(Self.configuration(platform: .android))
        let newer = try Self.launchCheck(Self.configuration(version: "2.4.1"))
        let iosAgain = try Self.launchCheck(Self.configuration())
        #expect(
            android.url
                == "http://lerix.test:8080/v1/projects/demo/release-control?platform=android&version=2.3.0&sdk=swift&sdk_version=1.0.0"
        )
        #expect(
            newer.url
                == "http://lerix.test:8080/v1/projects/demo/release-control?platform=ios&version=2.4.1&sdk=swift&sdk_version=1.0.0"
        )
        #expect(iosAgain.url == ios.url)
    }

    @Test func eachInstanceSendsItsOwnETag() throws {
        let config = try Self.configuration()
        let none = try Self.launchCheck(config)
        let a = try Self.launchCheck(config, etag: "\"a\"")
        let a2 = try Self.launchCheck(config, etag: "\"a\"")
        let b = try Self.launchCheck(config, etag: "\"b\"")
        let noneAgain = try Self.launchCheck(config)
        #expect(none.header("If-None-Match") == nil)
        #expect(a.header("If-None-Match") == "\"a\"")
        #expect(a2 == a)
        #expect(b.header("If-None-Match") == "\"b\"")
        #expect(noneAgain.header("If-None-Match") == nil)
        #expect(b.url == a.url)
    }
}
