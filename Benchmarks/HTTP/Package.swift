// swift-tools-version:6.0
// The benchmark server for Benchmarks/HTTP/run. It compiles the product's HTTPCore sources (symlinked) with a
// tiny bench executable, so no bench code or product change reaches the root package.
import PackageDescription

let package = Package(
    name: "HTTPBench",
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        .target(name: "CryptoCore", dependencies: ["COpenSSL"]),
        .target(name: "HTTPCore", dependencies: [
            "CryptoCore", "CLinux", .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "HTTPBench", dependencies: [
            "HTTPCore", .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
