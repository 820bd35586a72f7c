import App
import ArgumentParser
import FakeApple

/// `siwa dev`: the local Apple stand-in and the server in one process, wired together with zero configuration.
struct Dev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server and the local Apple stand-in together: a working sign-in with no Apple account."
    )

    @Option(help: "Address both listen on.")
    var hostname: String = "127.0.0.1"

    @Option(help: "Port of the server.")
    var port: Int = 8080

    @Option(help: "Port of the Apple stand-in.")
    var applePort: Int = 9090

    @Option(help: "SQLite file of the server.")
    var database: String = "siwa.sqlite"

    @Option(help: "File holding the stand-in's signing keys (created when missing).")
    var keyFile: String = FakeAppleKeys.defaultPath

    func validate() throws {
        try PortOption.check(port, "--port")
        try PortOption.check(applePort, "--apple-port")
        if database.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--database must name a SQLite file")  // found by a review: SQLite's error 21
        }
        if port != 0, port == applePort {
            throw ValidationError("--port and --apple-port must differ, not both \(port)")
        }
    }

    func run() async throws {
        try await DevEnvironment.run(
            hostname: hostname, port: port, applePort: applePort, databasePath: database, keyFile: keyFile
        )
    }
}
