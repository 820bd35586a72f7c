// swift-tools-version:6.0
import PackageDescription

// SiwaClient: the siwa-server API for iOS and macOS apps, generated from Resources/openapi.yaml (a copy of it lives
// in Sources/SiwaClient, checked equal in CI) by swift-openapi-generator's build plugin, with a thin layer that
// keeps the bearer token. A package of its own, so the server's build and dependencies stay as they are.
let package = Package(
    name: "SiwaClient",
    // `Duration` (SiwaError.retryAfter) needs iOS 16 and its siblings.
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "SiwaClient", targets: ["SiwaClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "SiwaClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .testTarget(name: "SiwaClientTests", dependencies: ["SiwaClient"]),
    ]
)
