// swift-tools-version:6.0
// A package outside lerix-mock, as an app team would write one: it depends on a release of
// lerix-mock BY VERSION and uses only its public products, LerixMock and LerixSDK. `make test`
// builds and runs it, after tagged-clone.sh has made the tagged repository it resolves.
import Foundation
import PackageDescription

/// The tagged clone of this repository (tagged-clone.sh), or another one given by the variable.
let taggedClone =
    Context.environment["LERIX_MOCK_TAGGED_CLONE"]
    ?? (Context.packageDirectory + "/../../.build/tagged-clone/lerix-mock")
let cloneURL = "file://" + URL(fileURLWithPath: taggedClone).standardizedFileURL.path

let package = Package(
    name: "LerixMockFixture",
    platforms: [.macOS(.v15)],
    // What an app team writes: any release from 0.2.0 up to the next major one.
    dependencies: [.package(url: cloneURL, from: "0.2.0")],
    targets: [
        // The week-long scenario, shared by the test that checks it and the benchmark that times it.
        .target(
            name: "WeekInTheLife",
            dependencies: [
                .product(name: "LerixMock", package: "lerix-mock"), .product(name: "LerixSDK", package: "lerix-mock"),
            ]
        ),
        .executableTarget(name: "week-bench", dependencies: ["WeekInTheLife"]),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "WeekInTheLife", .product(name: "LerixMock", package: "lerix-mock"),
                .product(name: "LerixSDK", package: "lerix-mock"),
            ]
        ),
    ]
)
