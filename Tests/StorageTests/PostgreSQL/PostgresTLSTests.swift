import Foundation
import Testing
import TestSupport
@testable import Storage

/// TLS to PostgreSQL as `DATABASE_URL` asks for it with libpq's own parameters (README "More than one instance";
/// https://www.postgresql.org/docs/current/libpq-ssl.html): the handshake runs inside the pool's non-blocking
/// connect, `sslmode=verify-full` checks the certificate chain and the host name, and a refusal is an `unavailable`
/// error that names the cause and never the password.
@Suite(.postgres, .timeLimit(.minutes(2)))
struct PostgresTLSTests {
    private static let password = "tls-test-password-7f3a"

    /// A pool of one connection for `cluster`'s `postgres` database with these libpq query parameters (and a
    /// password, which the cluster's `trust` authentication ignores, to show it is never echoed).
    private func pool(_ cluster: PostgresCluster, _ parameters: String) throws -> PostgresPool {
        let url = "postgres://postgres:\(Self.password)@127.0.0.1:\(cluster.port)/postgres?\(parameters)"
        return try PostgresPool(url: try PostgresURL(url), size: 1, connectTimeout: .seconds(5 * Sanitizer.timeScale))
    }

    /// Whether the session is encrypted, and with which protocol, as the server sees it.
    private func sessionTLS(_ pool: PostgresPool) async throws -> (Bool, String?)? {
        try await pool.readOne(SQL("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            (try $0[0] as Bool, try $0[1] as String?)
        }
    }

    /// The error the first query on `pool` fails with.
    private func connectFailure(_ pool: PostgresPool) async -> PostgresError? {
        await #expect(throws: PostgresError.self) { _ = try await pool.readOne(SQL("SELECT 1")) { try $0[0] as Int } }
    }

    @Test func verifyFullWithTheServersCertificateConnectsOverTLS() async throws {
        let certificate = try SelfSignedCertificate.make()
        let cluster = try await PostgresCluster.started(tls: certificate)
        defer { cluster.stop() }
        let pool = try pool(cluster, "sslmode=verify-full&sslrootcert=\(certificate.certificatePath)")

        let session = try #require(try await sessionTLS(pool))
        #expect(session.0, "the session is encrypted")
        #expect(session.1 == "TLSv1.3")
        try await pool.write(SQL("CREATE TABLE t (id bigint PRIMARY KEY)"))
        _ = try await pool.write([SQL("INSERT INTO t VALUES (?)", [1]), SQL("INSERT INTO t VALUES (?)", [2])])
        #expect(try await pool.readOne(SQL("SELECT count(*) FROM t")) { try $0[0] as Int } == 2)
    }

    @Test func verifyFullRefusesACertificateFromAnotherAuthority() async throws {
        let cluster = try await PostgresCluster.started(tls: try SelfSignedCertificate.make())
        defer { cluster.stop() }
        let stranger = try SelfSignedCertificate.make()
        let error = await connectFailure(try pool(cluster, "sslmode=verify-full&sslrootcert=\(stranger.certificatePath)"))

        #expect(error?.reason == .unavailable)
        #expect(error?.message.contains("certificate verify failed") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.password) == false)
    }

    @Test func verifyFullRefusesACertificateForAnotherHostName() async throws {
        let certificate = try SelfSignedCertificate.make(subjectAltNames: "DNS:db.example.com")
        let cluster = try await PostgresCluster.started(tls: certificate)
        defer { cluster.stop() }
        let error = await connectFailure(try pool(cluster, "sslmode=verify-full&sslrootcert=\(certificate.certificatePath)"))

        #expect(error?.reason == .unavailable)
        #expect(error?.message.contains("does not match host name") == true, "\(String(describing: error))")
        #expect(error?.description.contains(Self.password) == false)

        let verifyCA = try pool(cluster, "sslmode=verify-ca&sslrootcert=\(certificate.certificatePath)")
        #expect(try await sessionTLS(verifyCA)?.0 == true, "verify-ca checks the chain, not the name")
    }

    @Test func requireRefusesAServerWithoutTLS() async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.stop() }
        let error = await connectFailure(try pool(cluster, "sslmode=require"))

        #expect(error?.reason == .unavailable)
        #expect(error?.message.contains("SSL") == true, "\(String(describing: error))")
        #expect(try await sessionTLS(try pool(cluster, "sslmode=prefer"))?.0 == false, "prefer falls back to plain TCP")
    }
}
