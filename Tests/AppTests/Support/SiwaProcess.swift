import Foundation
import Glibc

/// The `siwa` executable built next to the test binary, run as `siwa serve` on a free loopback port under a shell
/// `ulimit -n`, with its output in a file.
final class SiwaProcess {
    let process = Process()
    let directory: URL
    let logURL: URL
    private(set) var port = 0

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `siwa`, found beside the test bundle (`swift build` / `swift test` build it).
    static func executable() throws -> URL {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        while directory.pathComponents.count > 1 {
            let candidate = directory.appendingPathComponent("siwa")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        throw Failure(description: "siwa not found next to \(me); run `swift build` first")
    }

    /// Starts the server with `environment` added and `openFiles` as its descriptor limit (soft and hard).
    init(openFiles: Int, environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logURL = directory.appendingPathComponent("server.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" serve --port 0 --env-file /nonexistent",
                             try Self.executable().path]
        var variables = ProcessInfo.processInfo.environment
        for name in variables.keys where name.hasPrefix("IOS_") || name.hasPrefix("WEBSITE_") || name.hasPrefix("APPLE_")
            || name.hasPrefix("TLS_") || name.hasPrefix("SIWA_") || name == "TRUST_PROXY" || name == "PORT" {
            variables[name] = nil
        }
        variables["HOSTNAME"] = "127.0.0.1"
        variables["DATABASE_PATH"] = directory.appendingPathComponent("siwa.sqlite").path
        variables["LOG_LEVEL"] = "notice"
        process.environment = variables.merging(environment) { _, new in new }
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits for the "listening on" line and returns the port.
    func waitUntilListening(timeout: Duration = .seconds(60)) throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning {
            if let range = log.range(of: "listening on http://127.0.0.1:") {
                let digits = log[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits), port > 0 {
                    self.port = port
                    return port
                }
            }
            usleep(20_000)
        }
        throw Failure(description: "siwa did not start: \(log.suffix(2000))")
    }

    /// Sockets the server holds open now (listener and connections), read from `/proc/<pid>/fd`.
    var openSockets: Int {
        let folder = "/proc/\(process.processIdentifier)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)"))?.hasPrefix("socket:") == true }.count
    }

    /// SIGTERM, then waits for the exit; SIGKILL if it takes longer than `timeout`. Returns the exit status.
    func stop(timeout: Duration = .seconds(30)) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
