// swift-tools-version:6.0
// The target graph is the architecture: each target depends only on those below it.
//
//   CNghttp2 CZlib CSQLite CYAML COpenSSL system libraries (Debian -dev packages)
//   POSIX                                 the only target that makes system calls on files, pipes, poll, processes
//   Clock  JSON  Randomness               instants, schedulers; JSON values; SplitMix64, the one seeded generator (pure)
//   HTTP                                  pure HTTP/1.1 request/response parsers + serializers (server and client side), HTTPURL, base64url
//   Sockets                               the only target that makes socket calls (server and client side), on POSIX
//   Reactor                               epoll + one serial queue + descriptor table + deadline sweep
//   HTTP2                                 nghttp2 server/client sessions, fed bytes, no I/O
//   TLS                                   OpenSSL sessions over memory BIOs (fed bytes, no I/O), keys, certificates
//   HTTPServer                            connections on reactors (one per core), h1/h2c and TLS (first-byte sniff), gzip
//   HTTPClient                            client sockets on a reactor over the ConnectionTransport seam (plaintext, TLS), HTTP/1.1 and HTTP/2 clients
//   YAML                                  libyaml -> JSON values with line/column marks
//   ReleaseControl                        rules, evaluation, lifetimes, ETags (FNV-1a), changes, push throttle, a mock's defaults (pure)
//   MockServer                            routes, admin API, problem+json; seams StateStore, PushSink (no sockets)
//   Persistence                           SQLite StateStore for --state
//   ProviderAuth                          APNs ES256 provider tokens, FCM OAuth (JWT bearer), and their stand-in checks (pure)
//   Push                                  PushSink over HTTPClient's HTTP/2 (TLS or h2c) to APNs/FCM, provider auth, the push-gateway stand-in
//   LerixSDK                              the client SDK (release control)
//   AdapterProtocol                       the adapter protocol's commands, fields, capabilities, state keys (typed, no I/O)
//   AdminClient                           the admin API's calls as values: paths, bodies, answers (typed, no I/O)
//   Adapter                               ADAPTER.md host for many SDK devices in virtual time; ResponderTransport (SDK to an in-process Responder)
//   LerixMock                             the mock in a Swift test's process: typed admin calls, one virtual clock (product)
//   ScenarioLanguage                      the scenario file format: YAML to the typed model, the spec catalogue, the release (no I/O)
//   ScenarioRunner                        Scenarios/ suites, JUnit, coverage
//   lerix-mock                            thin CLI
import PackageDescription

let package = Package(
    name: "lerix-mock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lerix-mock", targets: ["lerix-mock"]),
        .library(name: "LerixSDK", targets: ["LerixSDK"]),
        .library(name: "LerixMock", targets: ["LerixMock"]),
    ],
    targets: [
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CYAML", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSockets"),

        .target(name: "POSIX", dependencies: ["CSockets"]),
        .target(name: "Clock", dependencies: ["POSIX"]),
        .target(name: "JSON"),
        .target(name: "Randomness"),
        .target(name: "HTTP"),
        .target(name: "Sockets", dependencies: ["CSockets", "POSIX"]),
        .target(name: "Reactor", dependencies: ["Sockets"]),
        .target(name: "HTTP2", dependencies: ["CNghttp2", "HTTP"]),
        .target(name: "TLS", dependencies: ["COpenSSL"]),
        .target(name: "HTTPServer", dependencies: ["HTTP", "HTTP2", "TLS", "Sockets", "Reactor", "CZlib", "Clock"]),
        .target(name: "HTTPClient", dependencies: ["HTTP", "HTTP2", "TLS", "Sockets", "Reactor"]),
        .target(name: "YAML", dependencies: ["CYAML", "JSON"]),
        .target(name: "ReleaseControl", dependencies: ["Clock", "JSON"]),
        .target(
            name: "MockServer",
            dependencies: ["ReleaseControl", "HTTP", "JSON", "Clock", "YAML", "POSIX"],
            // The dashboard at /ui: plain files, compiled in so every copy of the binary serves them.
            resources: [
                .embedInCode("Dashboard/index.html"), .embedInCode("Dashboard/dashboard.js"),
                .embedInCode("Dashboard/dashboard.css"),
            ]
        ),
        .target(name: "Persistence", dependencies: ["MockServer", "ReleaseControl", "CSQLite", "JSON", "POSIX"]),
        .target(name: "ProviderAuth", dependencies: ["TLS", "HTTP", "JSON", "Clock"]),
        .target(
            name: "Push",
            dependencies: [
                "MockServer", "ReleaseControl", "HTTP", "HTTP2", "HTTPClient", "Reactor", "Sockets",
                "TLS", "ProviderAuth", "JSON", "Clock",
            ]
        ),
        .target(name: "LerixSDK", dependencies: ["Clock", "JSON"]),
        // One vocabulary for the host and the runner; value names (platforms, modules) are LerixSDK's own.
        .target(name: "AdapterProtocol", dependencies: ["LerixSDK", "JSON", "Clock"]),
        // LerixMock, the runner and the adapter host send the same admin calls, each its own way.
        .target(name: "AdminClient", dependencies: ["JSON", "Clock"]),
        .target(
            name: "Adapter",
            dependencies: ["AdapterProtocol", "AdminClient", "LerixSDK", "JSON", "Clock", "HTTP", "HTTPClient", "TLS"]
        ),
        // What an app team's tests use (Tests/LerixMockFixture is such a package).
        .target(
            name: "LerixMock",
            dependencies: ["MockServer", "Adapter", "AdminClient", "LerixSDK", "HTTPServer", "HTTP", "JSON", "Clock"]
        ),
        // The spec catalogue is compiled in (a symlink to Scenarios/spec-catalogue.yaml), so
        // `covers` ids are checked wherever scenarios live; rule bodies are checked by ReleaseControl's decoding.
        // No sockets, HTTP/2 or SQLite below it: the scenario-parser fuzz build links libyaml alone.
        .target(
            name: "ScenarioLanguage",
            dependencies: ["AdapterProtocol", "LerixSDK", "ReleaseControl", "YAML", "JSON", "Clock"],
            resources: [.embedInCode("Catalogue/spec-catalogue.yaml")]
        ),
        .target(
            name: "ScenarioRunner",
            dependencies: [
                "ScenarioLanguage", "Adapter", "AdapterProtocol", "AdminClient", "MockServer", "ReleaseControl", "Push",
                "HTTPServer", "YAML", "JSON", "Clock", "HTTP", "HTTPClient", "POSIX", "Randomness",
            ],
            resources: [
                .embedInCode("Conformance/adapter-protocol.schema.json"),
                .embedInCode("Results/scenario-results.schema.json"),
            ]
        ),
        .executableTarget(
            name: "lerix-mock",
            dependencies: [
                "MockServer", "HTTPServer", "Persistence", "Push", "ProviderAuth", "Adapter", "AdapterProtocol",
                "ScenarioRunner", "ScenarioLanguage", "LerixSDK", "JSON", "Clock", "TLS", "POSIX",
            ]
        ),

        // Shared by test targets only: a blocking HTTP client and the spawned binary.
        .target(
            name: "TestSupport",
            dependencies: ["HTTP", "HTTPClient", "Sockets", "JSON", "TLS", "ReleaseControl", "Clock", "Randomness"],
            path: "Tests/TestSupport"
        ),

        .testTarget(name: "ClockTests", dependencies: ["Clock", "Randomness"]),
        .testTarget(name: "RandomnessTests", dependencies: ["Randomness"]),
        .testTarget(name: "JSONTests", dependencies: ["TestSupport", "JSON"]),
        .testTarget(name: "HTTPTests", dependencies: ["TestSupport", "HTTP"]),
        .testTarget(name: "TLSTests", dependencies: ["TestSupport", "TLS"]),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["TestSupport", "HTTPServer", "HTTP2", "HTTP", "Sockets", "Clock", "TLS"]
        ),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: ["TestSupport", "HTTPClient", "HTTPServer", "HTTP", "Sockets", "Reactor", "TLS"]
        ),
        .testTarget(name: "YAMLTests", dependencies: ["TestSupport", "YAML", "JSON"]),
        .testTarget(name: "ReleaseControlTests", dependencies: ["TestSupport", "ReleaseControl", "Clock", "JSON"]),
        .testTarget(
            name: "PersistenceTests",
            dependencies: [
                "TestSupport", "Persistence", "MockServer", "ReleaseControl", "CSQLite", "HTTP", "Clock", "JSON",
                "POSIX",
            ]
        ),
        .testTarget(
            name: "MockServerTests",
            dependencies: ["TestSupport", "MockServer", "AdminClient", "ReleaseControl", "HTTP", "JSON", "Clock"]
        ),
        .testTarget(
            name: "PushTests",
            dependencies: [
                "TestSupport", "Push", "ProviderAuth", "MockServer", "ReleaseControl", "HTTPServer", "HTTP2", "HTTP",
                "JSON", "Clock", "TLS",
            ]
        ),
        .testTarget(name: "LerixSDKTests", dependencies: ["LerixSDK", "Clock", "JSON", "Randomness"]),
        .testTarget(
            name: "AdapterTests",
            dependencies: ["TestSupport", "Adapter", "AdapterProtocol", "LerixSDK", "JSON", "Clock"]
        ),
        .testTarget(
            name: "ScenarioLanguageTests",
            dependencies: ["ScenarioLanguage", "AdapterProtocol", "ReleaseControl", "JSON"]
        ),
        .testTarget(
            name: "ScenarioRunnerTests",
            dependencies: [
                "TestSupport", "ScenarioRunner", "ScenarioLanguage", "Adapter", "AdapterProtocol", "AdminClient",
                "LerixSDK", "MockServer", "JSON", "Clock", "ReleaseControl", "POSIX", "Sockets",
            ]
        ),
        .testTarget(name: "AdminClientTests", dependencies: ["AdminClient", "JSON", "Clock"]),
        .testTarget(name: "LerixMockTests", dependencies: ["LerixMock", "LerixSDK"]),
        .testTarget(name: "IntegrationTests", dependencies: ["TestSupport", "JSON", "HTTP", "YAML", "TLS"]),
    ]
)
