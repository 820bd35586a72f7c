// The chores benchmark's seed (Benchmarks/run --chores): stores COUNT users, each with an Apple refresh token the
// stand-in honours, in the database the environment names, read as `siwa serve` reads it (DATABASE_PATH or
// DATABASE_URL, the Apple key, SIWA_ENCRYPTION_KEY). Usage: ChoresSeed <count> [tag]
import App
import FakeApple
import Foundation

let arguments = CommandLine.arguments
guard (2...3).contains(arguments.count), let count = Int(arguments[1]), count > 0 else {
    FileHandle.standardError.write(Data("usage: ChoresSeed <count> [tag]\n".utf8))
    exit(64)
}
var configuration = try Configuration.load(dotEnvPath: "/nonexistent")
configuration.appleChoresInterval = 0
let server = try await SiwaServer(configuration: configuration)
let started = ContinuousClock.now
try await server.seedAppleTokens(count, tag: arguments.count == 3 ? arguments[2] : "bench",
                                 token: FakeAppleServer.seededRefreshToken(subject:))
print("seeded \(count) in \(ContinuousClock.now - started)")
await server.shutdown()
