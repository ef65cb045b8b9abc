// swift-tools-version:6.0
// A package outside lerix-mock, as an app team would write one: it depends on lerix-mock by path
// and uses only its public products, LerixMock and LerixSDK. `make test` builds and runs it.
import Foundation
import PackageDescription

/// A path dependency's identity is its folder's name, which is the clone's name (`lerix-mock`,
/// `main`, whatever CI checked out), so it is read from the path rather than written down.
let lerixMockPath = "../.."
let lerixMock = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent(lerixMockPath)
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "LerixMockFixture",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: lerixMockPath)],
    targets: [
        // The week-long scenario, shared by the test that checks it and the benchmark that times it.
        .target(
            name: "WeekInTheLife",
            dependencies: [
                .product(name: "LerixMock", package: lerixMock), .product(name: "LerixSDK", package: lerixMock),
            ]
        ),
        .executableTarget(name: "week-bench", dependencies: ["WeekInTheLife"]),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "WeekInTheLife", .product(name: "LerixMock", package: lerixMock),
                .product(name: "LerixSDK", package: lerixMock),
            ]
        ),
    ]
)
