import Foundation
import TestSupport
import Testing
@testable import Storage

/// Kills a process in the middle of a stream of writes and checks that every write it saw committed survived.
struct CrashTests {
    /// How many committed ids to wait for before each kill.
    static let committedBeforeKill = 300
    /// Kill-and-restart rounds on the same database.
    static let rounds = 4
    static let deadline: TimeInterval = 30

    /// Runs the child until it reported `committedBeforeKill` commits, SIGKILLs it, returns every id it reported.
    static func runAndKill(path: String, synchronous: String, firstID: Int) throws -> Set<Int> {
        let process = try ChildProcess(try ChildProcess.builtProduct("StorageCrashChild"), arguments: [path, synchronous, String(firstID)],
                                       output: .pipe)

        var text = ""
        let started = Date()
        let reader = try #require(process.output)
        while text.split(separator: "\n").count < committedBeforeKill + 1,
              Date().timeIntervalSince(started) < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        kill(process.pid, SIGKILL)
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.wasSignaled && process.terminationStatus == SIGKILL)

        var lines = text.split(separator: "\n")
        try #require(lines.first == "ready", "child did not start: \(text.prefix(200))")
        lines.removeFirst()
        if !lines.isEmpty, !text.hasSuffix("\n") { lines.removeLast() }  // a line cut by the kill
        return Set(lines.compactMap { Int($0) })
    }

    @Test(arguments: ["normal", "full"])
    func everyReportedCommitSurvivesSIGKILL(synchronous: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crash.sqlite")
        var reported = Set<Int>()
        for round in 0..<Self.rounds {
            let ids = try Self.runAndKill(path: path, synchronous: synchronous, firstID: round * 1_000_000_000)
            #expect(ids.count >= Self.committedBeforeKill)
            reported.formUnion(ids)
        }
        let database = try Database(path: path)
        let stored = Set(try database.fetchAll(sql: "SELECT id FROM crash") { try $0[0] as Int })
        let lost = reported.subtracting(stored)
        #expect(lost.isEmpty, "\(lost.count) of \(reported.count) reported commits were lost")
        #expect(try database.fetchOne(sql: "PRAGMA integrity_check") { try $0[0] as String } == "ok")
    }
}
