import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing

/// `siwa serve` under `ulimit -n 256` against 1000 client connections: connections already being served keep
/// their answers while the server is saturated, and once the clients leave new ones are served again.
/// Every wait is bounded; the scenario runs on its own thread, off the cooperative pool.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DescriptorExhaustionTests {
    static let openFiles = 256
    static let clients = 1000
    /// Connections served from the start, kept alive through the flood.
    static let early = 8
    /// The connection cap `siwa` sets for itself under that limit (`DescriptorLimit`: 64 + 1/8 held back).
    static let connectionCap = openFiles - (64 + openFiles / 8)

    /// Raises this process's soft descriptor limit to its hard limit; returns the soft limit now in force.
    static func raiseOwnLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(min(limit.rlim_cur, rlim_t(Int.max)))
    }

    static func health(_ socket: LoopbackSocket, milliseconds: Int32 = 10_000) -> Int? {
        guard (try? socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")) != nil else { return nil }
        return socket.response(milliseconds: milliseconds)?.status
    }

    @Test func servesThroughAndAfterDescriptorExhaustion() async throws {
        let available = Self.raiseOwnLimit()
        try #require(available >= Self.clients + 200, "this process may open only \(available) descriptors")
        let report = try await offThePool { try Self.scenario() }
        #expect(report.idleSockets == 1, "the server started with \(report.idleSockets) sockets")
        #expect(report.earlyAnsweredWhileSaturated == Self.early)
        #expect(report.peakSockets >= Self.connectionCap, "the server never held \(Self.connectionCap) sockets")
        #expect(report.peakSockets <= Self.openFiles)
        #expect(!report.probeAnsweredWhileSaturated)
        #expect(report.probeAnsweredAfter)
        #expect(report.freshAnsweredAfter == 5)
        #expect(report.loweredCapLogged)
        #expect(report.exitStatus == 0)
    }

    struct Report: Sendable {
        var earlyAnsweredWhileSaturated = 0
        var peakSockets = 0
        /// Sockets the server holds before any client connects: its listener, and nothing inherited from the tests.
        var idleSockets = 0
        var probeAnsweredWhileSaturated = true
        var probeAnsweredAfter = false
        var freshAnsweredAfter = 0
        var loweredCapLogged = false
        var exitStatus: Int32?
    }

    static func scenario() throws -> Report {
        var report = Report()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["HOSTNAME": "127.0.0.1", "LOG_LEVEL": "notice",
                           "DATABASE_PATH": directory.appendingPathComponent("siwa.sqlite").path]
        let server = try SiwaProcess(["serve", "--port", "0"], environment: environment, directory: directory,
                                     wrapper: SiwaProcess.openFileLimit(openFiles))
        let port = try server.waitForPortBlocking()
        report.idleSockets = server.openSockets
        let early = try (0..<Self.early).map { _ in try LoopbackSocket(port: port) }
        for socket in early where health(socket) != 200 {
            throw SiwaProcess.Failure(description: "not served before the flood: \(server.output.suffix(2000))")
        }

        var flood = try (0..<clients).map { _ in try LoopbackSocket(port: port) }
        let saturatedBy = ContinuousClock.now + .seconds(30)
        while server.openSockets < connectionCap, ContinuousClock.now < saturatedBy { usleep(20_000) }
        report.peakSockets = server.openSockets

        let probe = try LoopbackSocket(port: port)
        try probe.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        report.earlyAnsweredWhileSaturated = early.filter { health($0) == 200 }.count
        report.probeAnsweredWhileSaturated = probe.response(milliseconds: 1000) != nil
        report.peakSockets = max(report.peakSockets, server.openSockets)

        flood.removeAll()
        report.probeAnsweredAfter = probe.response(milliseconds: 30_000)?.status == 200
        for _ in 0..<5 {
            let fresh = try LoopbackSocket(port: port)
            if health(fresh) == 200 { report.freshAnsweredAfter += 1 }
        }
        report.loweredCapLogged = server.output.contains("connection limit lowered to fit the open-file limit")
        withExtendedLifetime(early) {}
        report.exitStatus = server.stop()
        return report
    }

    /// With its descriptor limit cut below what it holds (`prlimit` while it runs), every `accept` fails with
    /// `EMFILE`, retried every 100 ms: the warning is logged once for the spell, and once a connection is accepted
    /// again, that is logged once. Found by an audit: the warning came 20 times a second.
    @Test func runningOutOfDescriptorsIsLoggedOncePerSpell() async throws {
        let available = Self.raiseOwnLimit()
        try #require(available >= 400, "this process may open only \(available) descriptors")
        let (warnings, resumed) = try await offThePool { () throws -> (Int, Bool) in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-process-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try SiwaProcess(["serve", "--port", "0"], environment: [
                "HOSTNAME": "127.0.0.1", "LOG_LEVEL": "notice", "DATABASE_PATH": directory.appendingPathComponent("s.sqlite").path,
            ], directory: directory, wrapper: SiwaProcess.openFileLimit(Self.openFiles))
            defer { _ = server.stop() }
            let port = try server.waitForPortBlocking()
            var held = try (0..<40).map { _ in try LoopbackSocket(port: port) }
            for socket in held where Self.health(socket) != 200 { throw SiwaProcess.Failure(description: server.output) }
            let limit = server.openSockets + 20
            #expect(try ChildProcess.run("/usr/bin/prlimit", arguments: ["--pid", "\(server.pid)", "--nofile=\(limit)"]) == 0)
            var flood = try (0..<100).map { _ in try LoopbackSocket(port: port) }
            usleep(2_000_000)
            let warned = server.output.components(separatedBy: "accept: out of descriptors or memory").count - 1
            flood.removeAll()
            held.removeAll()
            let fresh = try LoopbackSocket(port: port)
            let answered = Self.health(fresh) == 200
            usleep(200_000)
            return (warned, answered && server.output.contains("accept: accepting connections again"))
        }
        #expect(warnings == 1)
        #expect(resumed)
    }
}
