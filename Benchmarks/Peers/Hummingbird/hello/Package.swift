// swift-tools-version:6.0
// The peer for Benchmarks/HTTP/run: a Hummingbird 2 hello-world. Never linked into the product.
import PackageDescription

let package = Package(
    name: "HummingbirdHello",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(name: "HummingbirdHello", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ]
)
