import Foundation
import Glibc
import TestSupport

/// The `siwa` executable built next to the test binary, run as `siwa serve` on a free loopback port under a shell
/// `ulimit -n`, with its output in a file.
final class SiwaProcess {
    private let process: ChildProcess
    var pid: pid_t { process.pid }
    let directory: URL
    let logURL: URL
    private(set) var port = 0

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts the server with `environment` added and `openFiles` as its descriptor limit (soft and hard).
    /// `ChildProcess` closes the test process's other descriptors in the child (tests running alongside would
    /// never see their peers close).
    init(openFiles: Int, environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logURL = directory.appendingPathComponent("server.log")
        let arguments = ["/bin/sh", "-c", "ulimit -n \(openFiles) && exec \"$0\" serve --port 0 --env-file /nonexistent",
                         try ChildProcess.builtProduct("siwa")]
        var variables = ProcessInfo.processInfo.environment
        for name in variables.keys where name.hasPrefix("IOS_") || name.hasPrefix("WEBSITE_") || name.hasPrefix("APPLE_")
            || name.hasPrefix("TLS_") || name.hasPrefix("SIWA_") || name == "TRUST_PROXY" || name == "PORT" {
            variables[name] = nil
        }
        variables["HOSTNAME"] = "127.0.0.1"
        variables["DATABASE_PATH"] = directory.appendingPathComponent("siwa.sqlite").path
        variables["LOG_LEVEL"] = "notice"
        process = try ChildProcess(arguments[0], arguments: Array(arguments.dropFirst()),
                                   environment: variables.merging(environment) { _, new in new },
                                   output: .file(logURL.path), error: .output)
    }

    /// Whether the child has not exited yet (reaps it when it has).
    var isRunning: Bool { process.isRunning }

    /// The exit status once the child has ended, negative for the signal that ended it.
    private var exitStatus: Int32? {
        guard !process.isRunning else { return nil }
        return process.wasSignaled ? -process.terminationStatus : process.terminationStatus
    }

    /// The server's output so far. Read with read(2): under AddressSanitizer, FoundationEssentials'
    /// `String(contentsOf:)` left 4 KiB buffers behind when called from this test's Foundation `Thread`.
    var log: String {
        let fd = open(logURL.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits for the "listening on" line and returns the port.
    func waitUntilListening(timeout: Duration = .seconds(60)) throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, isRunning {
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
        let folder = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)"))?.hasPrefix("socket:") == true }.count
    }

    /// SIGTERM, then waits for the exit; SIGKILL if it takes longer than `timeout`. Returns the exit status
    /// (negative: the signal that ended it), nil when it had to be killed.
    func stop(timeout: Duration = .seconds(30)) -> Int32? {
        guard isRunning else { return exitStatus }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard !isRunning else {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return exitStatus
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
