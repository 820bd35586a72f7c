import Foundation
import Glibc
import TestSupport
import Testing

/// The real `siwa` binary as a child process: started in a folder of its own (so no stray `.env` is read) with only
/// the environment it is given, its stdout and stderr together in a file, stopped with a signal.
final class SiwaProcess {
    let process: ChildProcess
    private let logURL: URL
    var pid: pid_t { process.pid }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts `siwa <arguments>` in `directory` with `environment`, `PATH` and `HOME` (the folder) only, and the
    /// sanitizers' options when the tests run under one (`Scripts/sanitize`), so the child's reports land with theirs.
    /// - Parameter wrapper: a command the binary runs under, e.g. `setpriv --reuid=65534 …` or `openFileLimit(_:)`.
    init(_ arguments: [String], environment: [String: String], directory: URL, wrapper: [String] = []) throws {
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-output-\(UUID().uuidString).log")
        let command = wrapper + [try ChildProcess.builtProduct("siwa")] + arguments
        process = try ChildProcess(command[0], arguments: Array(command.dropFirst()),
                                   environment: environment.merging(Self.inherited(directory)) { $1 },
                                   directory: directory.path, input: .null, output: .file(logURL.path), error: .output)
    }

    /// What every child gets besides its own environment.
    private static func inherited(_ directory: URL) -> [String: String] {
        let sanitizers = ProcessInfo.processInfo.environment.filter {
            ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "LD_PRELOAD"].contains($0.key)
        }
        return sanitizers.merging(["PATH": "/usr/bin:/bin", "HOME": directory.path]) { $1 }
    }

    deinit {
        if process.isRunning {
            kill(process.pid, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logURL)
    }

    /// A wrapper that runs the binary under `ulimit -n openFiles` (soft and hard).
    static func openFileLimit(_ openFiles: Int) -> [String] {
        ["/bin/sh", "-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\""]
    }

    /// Runs `siwa <arguments>` to its end, as an operator types it; fails when it does not end within `timeout`
    /// seconds. Its `status` and `output` are then final.
    /// The wait suspends rather than holding one of the few threads every other test's tasks run on.
    static func run(_ arguments: [String], environment: [String: String], directory: URL,
                    timeout: TimeInterval = 60) async throws -> SiwaProcess {
        let command = try SiwaProcess(arguments, environment: environment, directory: directory)
        guard await command.exited(within: .seconds(timeout)) != nil else {
            throw Failure(description: "siwa \(arguments.joined(separator: " ")) did not end: \(command.output)")
        }
        return command
    }

    /// Everything the child has written so far. Read with read(2): under AddressSanitizer, FoundationEssentials'
    /// `String(contentsOf:)` left 4 KiB buffers behind when called from a test's Foundation `Thread`.
    var output: String {
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

    /// The output's lines, without the empty last one.
    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The output parsed as one JSON object.
    func json() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]) ?? [:]
    }

    /// The exit code once the child has ended, negative for the signal that ended it; nil while it runs.
    var status: Int32? {
        guard !process.isRunning else { return nil }
        return process.wasSignaled ? -process.terminationStatus : process.terminationStatus
    }

    /// The port logged right after `prefix` (at the end of a line or before a space), waiting up to `timeout` seconds.
    /// The wait suspends rather than holding one of the few threads every other test's tasks run on.
    func waitForPort(after prefix: String = "siwa listening on http://127.0.0.1:", timeout: TimeInterval = 60)
        async throws -> Int
    {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = portLogged(after: prefix) { return port }
            if !process.isRunning { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try notStarted()
    }

    /// `waitForPort` for a caller already on a thread of its own (off the cooperative pool): it blocks.
    func waitForPortBlocking(after prefix: String = "siwa listening on http://127.0.0.1:", timeout: TimeInterval = 60)
        throws -> Int
    {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let port = portLogged(after: prefix) { return port }
            if !process.isRunning { break }
            usleep(20_000)
        }
        return try notStarted()
    }

    private func portLogged(after prefix: String) -> Int? {
        let log = output
        guard let range = log.range(of: prefix) else { return nil }
        let digits = log[range.upperBound...].prefix { $0.isNumber }
        let next = log[range.upperBound...].dropFirst(digits.count).first
        guard let port = Int(digits), port > 0, next == "\n" || next == " " else { return nil }
        return port
    }

    private func notStarted() throws -> Int {
        Issue.record("siwa did not start: \(output.suffix(2000))")
        throw Failure(description: "siwa did not start")
    }

    /// Waits up to `timeout` seconds for the child to end; its `status`, or nil when it still runs.
    @discardableResult
    func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        return status
    }

    /// `waitForExit` for a long wait, suspending instead of holding a thread.
    func exited(within timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return waitForExit(timeout: 1)
    }

    func signal(_ number: Int32) { kill(process.pid, number) }

    /// `stop` for an async caller: SIGTERM, then suspends (holding no thread of the cooperative pool, which a busy
    /// parallel suite needs) until the exit; SIGKILL if it takes longer than `timeout`. Returns the `status`, nil
    /// when it had to be killed. A server with idle keep-alive connections takes its drain time (1 s) to exit.
    @discardableResult
    func terminate(within timeout: Duration = .seconds(30)) async -> Int32? {
        guard process.isRunning else { return status }
        signal(SIGTERM)
        if let status = await exited(within: timeout) { return status }
        signal(SIGKILL)
        process.waitUntilExit()
        return nil
    }

    /// SIGTERM, then waits for the exit, holding the calling thread; SIGKILL if it takes longer than `timeout`
    /// seconds. Returns the `status`, nil when it had to be killed. From async code, `terminate(within:)`.
    @discardableResult
    func stop(timeout: TimeInterval = 30) -> Int32? {
        guard process.isRunning else { return status }
        signal(SIGTERM)
        guard let status = waitForExit(timeout: timeout) else {
            signal(SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return status
    }

    /// Sockets the child holds open now (listener and connections), read from `/proc/<pid>/fd`.
    var openSockets: Int {
        let folder = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)"))?.hasPrefix("socket:") == true
        }.count
    }
}
