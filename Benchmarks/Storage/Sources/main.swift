// Storage benchmark: committed sign-ins (user + token) and token lookups per second through App's repositories.
// Usage: StorageBenchmark <directory> <count> <normal|full>. Prints `name value` lines (operations per second).
import App
import Foundation
import Storage

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: StorageBenchmark <directory> <count> <normal|full>\n".utf8))
    exit(64)
}
var configuration = DatabaseConfiguration(synchronous: arguments[3] == "full" ? .full : .normal)
if let pages = ProcessInfo.processInfo.environment["CHECKPOINT_THRESHOLD_PAGES"].flatMap(Int.init) {
    configuration.checkpointThresholdPages = pages
}
let benchmark = StorageBenchmark(count: count, concurrency: 64)

func freshPool(_ name: String, _ configuration: DatabaseConfiguration) async throws -> DatabasePool {
    let path = URL(fileURLWithPath: arguments[1]).appendingPathComponent(name).path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    return try await AppMigrations.openAndMigrate(path: path, configuration: configuration)
}

let pool = try await freshPool("swift.sqlite", configuration)

print("signins_sequential", try await benchmark.signIns(pool, run: 1, width: 1))
let before = pool.writeStatistics
print("signins_concurrent", try await benchmark.signIns(pool, run: 2, width: benchmark.concurrency))
let after = pool.writeStatistics
print("signins_concurrent_mean_batch",
      Double(after.writes - before.writes) / Double(max(after.transactions - before.transactions, 1)))
print("lookups_sequential", try await benchmark.lookups(pool, run: 1, width: 1))
print("lookups_concurrent", try await benchmark.lookups(pool, run: 2, width: benchmark.concurrency))

configuration.maxWriteBatch = 1
let unbatched = try await freshPool("swift-unbatched.sqlite", configuration)
print("signins_concurrent_without_group_commit", try await benchmark.signIns(unbatched, run: 3, width: benchmark.concurrency))

