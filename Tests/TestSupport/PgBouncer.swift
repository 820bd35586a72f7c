import Foundation
import Glibc

/// Debian's PgBouncer (`Scripts/setup pgbouncer` installs it) in front of a `PostgresCluster`, in transaction pooling
/// mode with a pool of `poolSize` server connections, on a free loopback port; run as the `postgres` user when the
/// tests run as root (PgBouncer refuses root), stopped and deleted by `stop()`.
package final class PgBouncer: Sendable {
    package let port: Int
    private let directory: String

    /// Where Debian installs it, or nil when it is not installed.
    package static let executable: String? = {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/pgbouncer") ? "/usr/sbin/pgbouncer" : nil
    }()

    package init(in front: PostgresCluster, poolSize: Int) throws {
        guard let executable = Self.executable else {
            throw ChildProcess.Failure(description: "PgBouncer is not installed (Scripts/setup pgbouncer)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-pgb-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try LoopbackPort.free()
        let configuration = """
            [databases]
            * = host=127.0.0.1 port=\(front.port)
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(directory)/users.txt
            pool_mode = transaction
            default_pool_size = \(poolSize)
            max_client_conn = 500
            server_reset_query =
            logfile = \(directory)/pgbouncer.log
            pidfile = \(directory)/pgbouncer.pid
            """
        try configuration.write(toFile: directory + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        try "\"postgres\" \"\"\n".write(toFile: directory + "/users.txt", atomically: true, encoding: .utf8)
        var command = [executable, "-d", directory + "/pgbouncer.ini"]
        if getuid() == 0, let user = getpwnam("postgres") {
            for path in [directory, directory + "/pgbouncer.ini", directory + "/users.txt"] {
                chown(path, user.pointee.pw_uid, user.pointee.pw_gid)
            }
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command
        }
        let status = try ChildProcess.run(command[0], arguments: Array(command.dropFirst()))
        guard status == 0 else { throw ChildProcess.Failure(description: "pgbouncer did not start (\(status))") }
        for _ in 0..<100 where !LoopbackPort.accepts(port) { usleep(50_000) }
    }

    deinit { stop() }

    /// A `postgres://` URI for `database` through the pooler.
    package func url(database: String) -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Stops PgBouncer and deletes its folder.
    package func stop() {
        if let text = try? String(contentsOfFile: directory + "/pgbouncer.pid", encoding: .utf8),
           let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGTERM)
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension PgBouncer {
    /// Starts one (`init(in:poolSize:)`, which waits for a child process) off the pool, runs `body` with it, and
    /// stops it (`stop`, which waits for its exit) off the pool too, whether `body` returns or throws.
    package static func with<T: Sendable>(in front: PostgresCluster, poolSize: Int,
                                          _ body: (PgBouncer) async throws -> T) async throws -> T {
        let bouncer = try await offThePool { try PgBouncer(in: front, poolSize: poolSize) }
        let result: Result<T, any Error>
        do { result = .success(try await body(bouncer)) } catch { result = .failure(error) }
        _ = try? await offThePool { bouncer.stop() }
        return try result.get()
    }
}
