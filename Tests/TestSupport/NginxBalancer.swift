import Foundation
import Glibc
import Testing

/// Debian's nginx as the load balancer in front of instances on 127.0.0.1, a child process with its own prefix
/// folder (configuration, pid, logs, temp files) that is removed on `stop()`. The configuration is the one
/// `Scripts/cluster` runs (`deploy/nginx/cluster.conf.template`): pooled keep-alive connections closed by nginx
/// before the instances' 60 s idle timeout, a refused connection marks an instance down for `failTimeout` seconds,
/// and a request that could not be sent is passed to the next instance.
package final class NginxBalancer: @unchecked Sendable {
    package static let binary = "/usr/sbin/nginx"
    package static var isAvailable: Bool { access(binary, X_OK) == 0 }

    package let port: Int
    package let failTimeout: Int
    private let directory: String
    private let process: ChildProcess

    /// Starts nginx on a free port in front of `upstreams` and returns once it accepts connections.
    package init(upstreams: [Int], failTimeout: Int = 1) async throws {
        port = try LoopbackPort.free()
        self.failTimeout = failTimeout
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let configuration = try Self.configuration(port: port, upstreams: upstreams, failTimeout: failTimeout,
                                               directory: directory)
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(Self.binary, arguments: ["-p", directory, "-c", directory + "/nginx.conf",
                                                            "-e", directory + "/error.log", "-g", "daemon off;"],
                                   output: .file(directory + "/output.log"), error: .output)
        for _ in 0..<500 {
            if LoopbackPort.accepts(port) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        stop()
        throw ChildProcess.Failure(description: "nginx did not start: \(log.suffix(2000))")
    }

    deinit { stop() }

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    /// nginx's error log so far (upstream failures are logged there at `error`).
    package var errorLog: String { (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? "" }

    /// Stops nginx (SIGQUIT: it finishes what it proxies) and removes its folder.
    package func stop() {
        if process.isRunning {
            kill(process.pid, SIGQUIT)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `deploy/nginx/cluster.conf.template`, the load balancer `Scripts/cluster` runs, filled in as
    /// `Scripts/lib/nginx.sh` fills it in, but with `failTimeout` for how long a refused instance stays out.
    static func configuration(port: Int, upstreams: [Int], failTimeout: Int, directory: String) throws -> String {
        let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/nginx/cluster.conf.template").standardizedFileURL
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=\(failTimeout)s;" }
        return try String(contentsOf: template, encoding: .utf8)
            .replacingOccurrences(of: "@SERVERS@", with: servers.joined(separator: "\n"))
            .replacingOccurrences(of: "@USER@", with: getuid() == 0 ? "user root;" : "")
            .replacingOccurrences(of: "@PREFIX@", with: directory)
            .replacingOccurrences(of: "@PORT@", with: String(port))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only where Debian's nginx is installed; under CI it always runs, and a missing nginx fails it.
    package static var nginx: Self {
        .enabled(if: NginxBalancer.isAvailable || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty,
                 "nginx is not installed (Scripts/setup nginx)")
    }
}
