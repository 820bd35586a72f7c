import Foundation
import HTTPCore
import Storage
import Web

/// One line of `siwa doctor`: what was checked, whether it holds, and how to fix it when it does not.
package struct DoctorFinding: Sendable, Equatable, CustomStringConvertible {
    package enum Verdict: String, Sendable {
        /// Holds.
        case ok
        /// A feature that is not configured, so nothing it needs is checked; not a failure.
        case off
        /// Does not hold: a configured route will fail.
        case fail = "FAIL"
    }

    package var verdict: Verdict
    /// The variable or thing checked, e.g. `APPLE_PRIVATE_KEY_PATH`.
    package var subject: String
    /// What is right, or what is wrong and the fix. Never a secret.
    package var message: String

    package var description: String {
        verdict.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0) + "\(subject): \(message)"
    }
}

/// `siwa doctor`: checks the configuration the server would start with (same environment, same `.env`), one
/// finding per check, before any user meets a mistake: the identifiers' shapes, the redirect URL, the `.p8`,
/// Apple's keys, the database, and whether Apple accepts the client secret for each client id. It never prints a
/// secret and never changes the database.
package struct Doctor: Sendable {
    let configuration: Configuration
    let environment: OperatorEnvironment
    let http: HTTPClient

    /// The code sent to `/auth/token` to learn whether Apple accepts the client secret: Apple answers
    /// `invalid_grant` for an unknown code only after it has accepted the client.
    static let probeCode = "siwa-doctor-probe"

    init(environment: OperatorEnvironment) {
        self.environment = environment
        configuration = environment.configuration
        http = HTTPClient(configuration: environment.configuration.appleClientConfiguration)
    }

    /// Runs every check, handing each finding to `emit` as it is made.
    /// - Returns: true when nothing failed (the exit status is 0 then).
    package static func run(dotEnvPath: String = ".env",
                           processEnvironment: [String: String] = ProcessInfo.processInfo.environment,
                           emit: (DoctorFinding) -> Void) async -> Bool {
        let variables: Environment
        do {
            variables = try OperatorEnvironment.environment(dotEnvPath: dotEnvPath, processEnvironment: processEnvironment)
        } catch {
            emit(DoctorFinding(verdict: .fail, subject: "configuration",
                               message: "\(error) (fix it in the environment or \(dotEnvPath))"))
            return false
        }
        var problems: [ConfigurationError] = []
        let configuration = Configuration(variables, problems: &problems)
        guard problems.isEmpty else {
            for problem in problems {
                emit(DoctorFinding(verdict: .fail, subject: problem.subject,
                                   message: "\(problem.detail) (fix it in the environment or \(dotEnvPath))"))
            }
            return false
        }
        let environment = OperatorEnvironment(configuration: configuration)
        var passed = true
        func record(_ findings: [DoctorFinding]) {
            for finding in findings {
                if finding.verdict == .fail { passed = false }
                emit(finding)
            }
        }
        record(startChecks(configuration, fixIn: dotEnvPath))
        let doctor = Doctor(environment: environment)
        record(IdentifierCheck(configuration: doctor.configuration).findings())
        let secret = doctor.appleKeyFindings()
        record(secret.findings)
        record([await doctor.appleKeysFinding()])
        record([await doctor.databaseFinding()])
        if let key = await doctor.refreshTokenKeyFinding() { record([key]) }
        if let clientSecret = secret.clientSecret { record(await doctor.clientSecretFindings(clientSecret)) }
        return passed
    }

    /// What `siwa serve` checks at start beyond the variables' shapes, and refuses to start without: the TLS files
    /// and the extra CA load (`TLSFilesCheck`), and `HOSTNAME` resolves to an address of this machine (bound on an
    /// ephemeral port, not `PORT`, which the running server holds). Found by an audit: doctor said ok to all three;
    /// and by a review: it said nothing when they held, nor that the certificate ends within days (the start warns).
    static func startChecks(_ configuration: Configuration, fixIn dotEnvPath: String) -> [DoctorFinding] {
        func failure(_ problem: ConfigurationError) -> DoctorFinding {
            DoctorFinding(verdict: .fail, subject: problem.subject,
                          message: "\(problem.detail) (fix it in the environment or \(dotEnvPath))")
        }
        var findings: [DoctorFinding] = []
        let resources = Configuration.locateResources(configuration.resourcesPath)
        if let problem = Configuration.resourcesProblem(at: resources) {
            findings.append(failure(problem))
        } else {
            findings.append(DoctorFinding(verdict: .ok, subject: "RESOURCES_PATH",
                                          message: "\(resources) holds the pages' templates and static files"))
        }
        do {
            let expiry = try TLSFilesCheck.check(configuration)
            if let file = configuration.trustStoreFile {
                findings.append(DoctorFinding(verdict: .ok, subject: "SSL_CERT_FILE",
                                              message: "\(file) holds PEM certificates"))
            }
            if let file = configuration.extraCAFile {
                findings.append(DoctorFinding(verdict: .ok, subject: "SIWA_EXTRA_CA_FILE", message: "\(file) loads"))
            }
            if let tls = configuration.tls {
                if let expiry, expiry.expired {
                    let expected = "a certificate that has not expired (\(expiry.detail))"
                    findings.append(failure(.malformed(name: "TLS_CERT_PATH", expected: expected)))
                } else {
                    let message = "\(tls.certificatePath) and its key in TLS_KEY_PATH load"
                    findings.append(DoctorFinding(verdict: .ok, subject: "TLS_CERT_PATH",
                                                  message: expiry.map { message + "; but " + $0.detail } ?? message))
                }
            } else {
                findings.append(DoctorFinding(verdict: .off, subject: "TLS_CERT_PATH",
                                              message: "not set: plain HTTP (a TLS proxy in front, or ngrok)"))
            }
        } catch let error as ConfigurationError {
            findings.append(failure(error))
        } catch {
            findings.append(failure(.malformed(name: "TLS_CERT_PATH", expected: "a readable PEM file (\(error))")))
        }
        do {
            try HTTPServer.checkAddress(hostname: configuration.hostname, port: 0)
            findings.append(DoctorFinding(verdict: .ok, subject: "HOSTNAME",
                                          message: "\(configuration.hostname) is an address of this machine"))
        } catch {
            findings.append(failure(SiwaServer.hostnameProblem(error)))
        }
        return findings
    }

    /// With the Apple key: the refresh-token key opens the sealed refresh tokens the database holds, and on
    /// PostgreSQL is the key its instances recorded (`RefreshTokenKeyCheck`, what start-up refuses without); nil when
    /// there is nothing to check or the database does not open (`databaseFinding` says why).
    func refreshTokenKeyFinding() async -> DoctorFinding? {
        let configuration = environment.configuration
        guard configuration.appleKey != nil, configuration.databaseURL == nil || configuration.encryptionKey != nil
        else { return nil }
        let subject = configuration.encryptionKey == nil ? "refresh-token key" : "SIWA_ENCRYPTION_KEY"
        let refusal: String?
        do {
            refusal = try await environment.withClient { database, _ in
                do {
                    try await RefreshTokenKeyCheck.check(configuration, database: database)
                    return nil
                } catch let refusal as RefreshTokenKeyCheck.Refusal {
                    return refusal.description
                } catch {
                    return "\(error)"
                }
            }
        } catch {
            return nil  // the database does not open: `databaseFinding` says why
        }
        if let refusal { return DoctorFinding(verdict: .fail, subject: subject, message: refusal) }
        guard configuration.encryptionKey == nil else {
            return DoctorFinding(verdict: .ok, subject: subject, message:
                "the variable opens the refresh tokens stored, if any (back it up apart from the database)")
        }
        let keyPath = AppleTokenLifecycle.keyFilePath(databasePath: configuration.databasePath)
        guard FileManager.default.fileExists(atPath: keyPath) else {
            return DoctorFinding(verdict: .ok, subject: subject, message: "no key at \(keyPath) yet, and no sealed "
                + "refresh token needs one: the server makes it at start (back it up apart from the database)")
        }
        return DoctorFinding(verdict: .ok, subject: subject, message:
            "\(keyPath) opens the refresh tokens stored, if any (back it up apart from the database)")
    }

    /// The database is reachable and has exactly this build's migrations; read only, nothing applied.
    func databaseFinding() async -> DoctorFinding {
        let subject = environment.configuration.databaseURL == nil ? "DATABASE_PATH" : "DATABASE_URL"
        do {
            let (users, name) = try await environment.withClient { database, name in
                (try await database.readOne(SQL("SELECT count(*) FROM users")) { row -> Int in try row[0] } ?? 0, name)
            }
            return DoctorFinding(verdict: .ok, subject: subject, message:
                "\(name) opens and has all \(AppMigrations.migrator.migrations.count) migrations (\(users) users)")
        } catch let error as OperatorError {
            let text = error.description
            let prefix = "\(subject): "
            return DoctorFinding(verdict: .fail, subject: subject,
                                 message: text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text)
        } catch {
            return DoctorFinding(verdict: .fail, subject: subject, message: "\(error)")
        }
    }
}
