import Foundation
import Glibc
import TestSupport
import Testing

/// The real `siwa` binary as a child process, with its stdout and stderr captured together.
final class ServerProcess {
    let process: ChildProcess
    private let output = LogCapture()
    private let reader: Thread

    /// Everything the child has written so far.
    var log: String { output.all.joined() }
    var pid: pid_t { process.pid }

    /// Starts `siwa <arguments>` in `directory` (so no stray `.env` is read) with only `environment` and `PATH`.
    /// - Parameter wrapper: a command the binary runs under, e.g. `setpriv --reuid=65534 …`.
    init(_ arguments: [String], environment: [String: String], directory: URL, wrapper: [String] = []) throws {
        let binary = try ChildProcess.builtProduct("siwa")
        let command = wrapper + [binary] + arguments
        process = try ChildProcess(command[0], arguments: Array(command.dropFirst()),
                                   environment: environment.merging(["PATH": "/usr/bin:/bin", "HOME": directory.path]) { $1 },
                                   directory: directory.path, input: .null, output: .pipe, error: .output)
        guard let handle = process.output else { throw ChildProcess.Failure(description: "no output pipe") }
        reader = Thread { [output] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                output.append(String(decoding: chunk, as: UTF8.self))
            }
        }
        reader.start()
    }

    deinit {
        if process.isRunning { kill(process.pid, SIGKILL) }
    }

    /// The port from `siwa listening on http://host:port`, waiting up to `timeout` seconds.
    func waitForPort(timeout: TimeInterval = 60) throws -> Int {
        try waitForLine(after: "siwa listening on http://127.0.0.1:", timeout: timeout)
    }

    /// The port logged right after `prefix` (at the end of a line or before a space), waiting up to `timeout` seconds.
    func waitForLine(after prefix: String, timeout: TimeInterval = 60) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let range = log.range(of: prefix) {
                let digits = log[range.upperBound...].prefix { $0.isNumber }
                let next = log[range.upperBound...].dropFirst(digits.count).first
                if let port = Int(digits), next == "\n" || next == " " { return port }
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("siwa did not start: \(log.suffix(2000))")
        throw CocoaError(.executableLoad)
    }

    /// Waits up to `timeout` seconds for the child to end; its exit status, or nil when still running.
    @discardableResult
    func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard !process.isRunning else { return nil }
        Thread.sleep(forTimeInterval: 0.1)  // the reader drains what is left in the pipe
        return process.terminationStatus
    }

    func signal(_ number: Int32) { kill(process.pid, number) }
}
