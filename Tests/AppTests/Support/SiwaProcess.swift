import Foundation
import Glibc

/// The `siwa` executable built next to the test binary, run as `siwa serve` on a free loopback port under a shell
/// `ulimit -n`, with its output in a file.
final class SiwaProcess {
    let pid: pid_t
    let directory: URL
    let logURL: URL
    private(set) var port = 0
    private var exitStatus: Int32?

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
    /// `posix_spawn` with `closefrom(3)`: the child must not inherit the test process's other sockets (tests
    /// running alongside would never see their peers close).
    init(openFiles: Int, environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logURL = directory.appendingPathComponent("server.log")
        let arguments = ["/bin/sh", "-c", "ulimit -n \(openFiles) && exec \"$0\" serve --port 0 --env-file /nonexistent",
                         try Self.executable().path]
        var variables = ProcessInfo.processInfo.environment
        for name in variables.keys where name.hasPrefix("IOS_") || name.hasPrefix("WEBSITE_") || name.hasPrefix("APPLE_")
            || name.hasPrefix("TLS_") || name.hasPrefix("SIWA_") || name == "TRUST_PROXY" || name == "PORT" {
            variables[name] = nil
        }
        variables["HOSTNAME"] = "127.0.0.1"
        variables["DATABASE_PATH"] = directory.appendingPathComponent("siwa.sqlite").path
        variables["LOG_LEVEL"] = "notice"
        let environment = variables.merging(environment) { _, new in new }.map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        try Self.closeFrom(&actions, 3)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, "/bin/sh", &actions, nil, argv, envp)
        guard status == 0 else { throw Failure(description: "posix_spawn: \(status)") }
        pid = child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which the Glibc module does not import.
    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)")
        }
        guard unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest) == 0 else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np failed")
        }
    }

    /// Whether the child has not exited yet (reaps it when it has).
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
        return false
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
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return nil
        }
        return exitStatus
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
