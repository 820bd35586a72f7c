// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "siwa-server",
    products: [
        .executable(name: "siwa", targets: ["siwa"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CLinux"),

        .target(name: "CryptoCore", dependencies: ["COpenSSL"]),
        .target(name: "IOCore", dependencies: ["CLinux"]),
        .target(name: "HTTPCore", dependencies: [
            "IOCore", "CryptoCore", "CLinux",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "JSON"),
        .target(name: "Web", dependencies: [
            "HTTPCore", "IOCore", "CryptoCore", "JSON",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Mustache", package: "swift-mustache"),
        ]),
        .target(name: "JOSE", dependencies: ["JSON", "CryptoCore"]),
        .target(name: "AppleID", dependencies: [
            "JOSE", "JSON", "HTTPCore", "IOCore", "CryptoCore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "Storage", dependencies: [
            "IOCore", "CSQLite", "CLibPQ", "CLinux",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "App", dependencies: [
            "IOCore", "Web", "AppleID", "Storage", "JOSE", "JSON", "CryptoCore", "HTTPCore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "FakeApple", dependencies: [
            "Web", "AppleID", "JOSE", "JSON", "CryptoCore", "HTTPCore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "siwa", dependencies: [
            "App", "FakeApple", "CryptoCore", "HTTPCore", "Web",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .executableTarget(name: "StorageCrashChild", dependencies: ["Storage"], path: "Tests/StorageCrashChild"),
        .executableTarget(name: "ClientThreadsChild", dependencies: [
            "HTTPCore", .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/ClientThreadsChild"),
        .executableTarget(name: "StorageBenchmark", dependencies: ["App", "Storage"], path: "Benchmarks/Storage/Sources"),
        .executableTarget(name: "JOSEBench", dependencies: ["AppleID", "JOSE", "JSON", "CryptoCore"], path: "Benchmarks/JOSE/Sources"),
        .executableTarget(name: "WebBenchmark", dependencies: ["Web", "HTTPCore"], path: "Benchmarks/Web/Sources"),
        .executableTarget(name: "ChoresSeed", dependencies: ["App", "FakeApple"], path: "Benchmarks/Chores/Sources"),

        .target(name: "TestSupport", dependencies: [
            "CryptoCore", "IOCore", .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/TestSupport"),
        .testTarget(name: "IOCoreTests", dependencies: ["IOCore"]),
        .testTarget(name: "CryptoCoreTests", dependencies: ["CryptoCore", "TestSupport"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "IOCore", "CryptoCore", "TestSupport"]),
        .testTarget(name: "WebTests", dependencies: ["Web", "HTTPCore", "JSON"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "JSON", "CryptoCore", "TestSupport"]),
        .testTarget(name: "AppleIDTests", dependencies: ["AppleID", "JOSE", "JSON", "HTTPCore", "CryptoCore", "TestSupport"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "IOCore", "TestSupport"]),
        .testTarget(name: "AppTests", dependencies: [
            "App", "FakeApple", "Web", "AppleID", "Storage", "JOSE", "JSON", "HTTPCore", "CryptoCore", "TestSupport",
        ]),
    ]
)

// libFuzzer targets (Fuzz/<Name>/), declared only when SIWA_FUZZ=1 so that `swift build`, `swift test` and
// Scripts/test never see them: they link libFuzzer's own `main` and must be built one product at a time with
// `-Xswiftc -sanitize=fuzzer,address` (Scripts/fuzz does this, in .build-fuzz).
if Context.environment["SIWA_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzHTTPRequest", ["HTTPCore", "FuzzSupport"]),
        ("FuzzChunked", ["HTTPCore", "FuzzSupport"]),
        ("FuzzJSON", ["JOSE", "JSON", "CryptoCore"]),
        ("FuzzJWS", ["JOSE", "CryptoCore"]),
        ("FuzzClaims", ["AppleID", "JOSE", "JSON"]),
        ("FuzzBase64URL", ["CryptoCore"]),
        ("FuzzForm", ["Web"]),
        ("FuzzCookie", ["Web"]),
    ]
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"))
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: target.dependencies,
                                                 path: "Fuzz/\(target.name)"))
    }
}

// A nonisolated async function runs on its caller's executor (SE-0461, Swift 6.2's `nonisolated(nonsending)` for
// every such function) instead of hopping to the generic executor at each call. The server's tasks prefer their
// event loop, where such a hop stays on the loop but still cost a task switch and a look-up of the preference under
// the task's lock: 37 of them per sign-in with an authorization code (BENCHMARKS.md, fourth session). Blocking work
// never relied on the hop: it goes to `BlockingWorker`, the SQLite writer or a Dispatch queue.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}
