import Foundation
import Glibc
import HTTPCore
import TestSupport
import Testing
import Web
@testable import App

/// SQLite locked by another process past the busy timeout, and a file size limit reached mid-run: the writes get
/// 503 with `Retry-After` and a log line naming the cause, reads go on, and writes work again once the fault
/// is gone, without a restart.
@Suite(.serialized, .timeLimit(.minutes(2)), .sqliteOnly)
struct DatabaseFaultTests {
    /// A short busy timeout keeps the test quick; the default is `DatabaseConfiguration.defaultBusyTimeoutMilliseconds`.
    static let busyTimeoutMilliseconds = 300

    /// `python3` holding `BEGIN EXCLUSIVE` on `path` until its stdin closes.
    final class LockHolder {
        let process: ChildProcess

        init(path: String) throws {
            let script = """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute("PRAGMA busy_timeout = 10000")
                db.execute("BEGIN EXCLUSIVE")
                print("locked", flush=True)
                sys.stdin.read()
                db.execute("COMMIT")
                """
            process = try ChildProcess("/usr/bin/env", arguments: ["python3", "-c", script, path], input: .pipe,
                                       output: .pipe)
            let output = try #require(process.output)
            let line = String(decoding: output.availableData, as: UTF8.self)
            guard line.hasPrefix("locked") else {
                Issue.record("python3 could not lock \(path): \(line)")
                throw CocoaError(.fileLocking)
            }
        }

        func release() {
            try? process.input?.close()
            process.waitUntilExit()
        }
    }

    @Test func aLockHeldPastTheBusyTimeoutIs503ForWritesWhileReadsGoOnAndRecovers() async throws {
        #expect(DatabaseUnavailableMiddleware.retryAfterSeconds > 0)
        let log = LogCapture()
        try await TestApp.with(logger: log.logger(), configure: { configuration in
            configuration.databaseBusyTimeoutMilliseconds = Self.busyTimeoutMilliseconds
        }) { app in
            let first = try await app.sendJSON(.POST, "/api/users/siwa", ["token": try app.identityToken(subject: "001.before")])
            let bearer = try #require(try first.json()["value"] as? String)

            let lock = try LockHolder(path: app.databasePath)
            let token = try app.identityToken(subject: "001.locked")
            let attempts = try await withThrowingTaskGroup(of: HTTPClientResponse.self) { group in
                for _ in 0..<4 { group.addTask { try await app.sendJSON(.POST, "/api/users/siwa", ["token": token]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for response in attempts {
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers["Retry-After"] == "\(DatabaseUnavailableMiddleware.retryAfterSeconds)")
                #expect(try response.json()["reason"] as? String == DatabaseUnavailableMiddleware.clientReason)
            }
            #expect(log.contains("database unavailable: locked by another connection",
                                 "busy timeout (DATABASE_BUSY_TIMEOUT_MS)"), "\(log.all.suffix(3))")
            #expect(!log.text.contains(token) && !log.text.contains(bearer))
            let me = try await app.sendJSON(.GET, "/api/users/me", [:], bearer: bearer)
            #expect(me.status == .ok, "reading with an existing bearer works while the writer is locked out")
            #expect(try await app.send(.GET, "/health").status == .ok)

            lock.release()
            let after = try await app.sendJSON(.POST, "/api/users/siwa", ["token": token])
            #expect(after.status == .ok, "the writer recovers once the lock is released")
            #expect(try await app.count("users") == 2)
        }
    }

    @Test func theBusyTimeoutIsANamedDefault() throws {
        #expect(Configuration().databaseBusyTimeoutMilliseconds == 5_000)
        let env = Environment(["DATABASE_BUSY_TIMEOUT_MS": "1"])
        #expect(try Configuration(env).databaseBusyTimeoutMilliseconds == 1)
        #expect(throws: (any Error).self) { try Configuration(Environment(["DATABASE_BUSY_TIMEOUT_MS": "0"])) }
    }

    @Test func aFileSizeLimitReachedMidRunIs503AndNothingCommittedIsLost() async throws {
        try await SpawnedApp.with { app in
            let server = try await app.launch()
            var bearers: [String] = []
            for index in 0..<3 {
                let response = try await app.signIn(token: try app.identityToken(subject: "001.full.\(index)"))
                #expect(response.status == .ok)
                bearers.append(try #require(try response.json()["value"] as? String))
            }
            let wal = try FileManager.default.attributesOfItem(atPath: app.databasePath + "-wal")[.size] as? Int ?? 0
            try Self.setFileSizeLimit(pid: server.pid, bytes: max(wal, 4096))

            // The first write past the limit is refused; the WAL then starts over (`aWALThatCannotGrowStartsOver…`).
            let response = try await app.signIn(token: try app.identityToken(subject: "001.refused"))
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers["Retry-After"] != nil)
            #expect(try response.json()["error"] as? Bool == true)
            #expect(server.process.isRunning, "SIGXFSZ must not kill the server")
            #expect(server.output.contains("database unavailable: a write failed"), "\(server.output.suffix(600))")
            for bearer in bearers { #expect(try await app.me(bearer: bearer).status == .ok) }
            #expect(try await app.health().status == .ok)

            try Self.setFileSizeLimit(pid: server.pid, bytes: nil)
            let back = try await app.signIn(token: try app.identityToken(subject: "001.after"))
            #expect(back.status == .ok, "writes work again once the limit is lifted")
            bearers.append(try #require(try back.json()["value"] as? String))

            await server.terminate()
            try await app.launch()
            for bearer in bearers { #expect(try await app.me(bearer: bearer).status == .ok, "committed before the fault") }
        }
    }

    /// A WAL that reaches a file size limit that stays: the writes that found no room are 503, and the writer then
    /// finishes a checkpoint, so the WAL starts over from its beginning and writes go on within the limit. Found by
    /// an audit: the WAL was never checkpointed once writes failed, and every write stayed a 503 for good.
    @Test func aWALThatCannotGrowStartsOverAndWritesGoOn() async throws {
        try await SpawnedApp.with { app in
            let server = try await app.launch()
            var bearers: [String] = []
            let first = try await app.signIn(token: try app.identityToken(subject: "001.room.first"))
            bearers.append(try #require(try first.json()["value"] as? String))
            let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
            try Self.setFileSizeLimit(pid: server.pid, bytes: size(app.databasePath) + size(app.databasePath + "-wal")
                                      + 128 * 1024)
            var statuses: [Int] = []
            for index in 0..<400 {
                let response = try await app.signIn(token: try app.identityToken(subject: "001.room.\(index)"))
                statuses.append(response.status.code)
                if response.status == .ok { bearers.append(try #require(try response.json()["value"] as? String)) }
                if let refused = statuses.firstIndex(of: 503), statuses.count - refused > 20 { break }
            }
            let refused = try #require(statuses.firstIndex(of: 503), "the limit was reached: \(statuses.count) sign-ins")
            #expect(statuses[(refused + 1)...].suffix(10).allSatisfy { $0 == 200 },
                    "after the 503, writes go on under the same limit: \(statuses[refused...])")
            #expect(server.process.isRunning)
            for bearer in bearers { #expect(try await app.me(bearer: bearer).status == .ok) }
        }
    }

    /// Sets the soft `RLIMIT_FSIZE` of `pid` (nil: unlimited) with util-linux `prlimit`.
    static func setFileSizeLimit(pid: pid_t, bytes: Int?) throws {
        let status = try ChildProcess.run("/usr/bin/prlimit",
                                          arguments: ["--pid", "\(pid)", "--fsize=\(bytes.map(String.init) ?? "unlimited"):"])
        guard status == 0 else { throw POSIXError(.EPERM) }
    }
}
