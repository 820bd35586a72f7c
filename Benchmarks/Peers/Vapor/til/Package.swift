// swift-tools-version:6.0
// The Vapor peer for Benchmarks/run: the TIL app's Sign in with Apple API as chapter 24 of "Server-Side Swift with
// Vapor" writes it (Vapor 4 + Fluent SQLite or PostgreSQL + JWT). Never linked into the product.
import PackageDescription

let package = Package(
    name: "VaporTIL",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", exact: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent.git", exact: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", exact: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", exact: "2.14.0"),
        .package(url: "https://github.com/vapor/jwt.git", exact: "5.2.0"),
    ],
    targets: [
        .executableTarget(name: "VaporTIL", dependencies: [
            .product(name: "Vapor", package: "vapor"),
            .product(name: "Fluent", package: "fluent"),
            .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
            .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            .product(name: "JWT", package: "jwt"),
        ]),
    ]
)
