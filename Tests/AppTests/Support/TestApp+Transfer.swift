import CryptoCore
@testable import FakeApple
import Foundation
import Storage
import TestSupport
@testable import App

/// Two Apple teams on one stand-in, for `AppleTransferTests`: the app's own (the development key the server signs
/// with) and a receiving team whose key is written beside the database; users in bulk, and what a transfer changed.
extension TestApp {
    static let receivingTeamID = "RECVTEAM01"
    static let receivingKeyID = "RECVKEY001"

    /// Runs `body` with a `TestApp` whose stand-in knows the receiving team's key too.
    static func withTwoTeams<T>(_ body: (TestApp) async throws -> T) async throws -> T {
        let key = try ES256PrivateKey.generate()
        let known = FakeAppleClientSecretCheck.KnownKey(publicKey: try key.publicKey, teamID: receivingTeamID,
                                                        keyID: receivingKeyID)
        return try await with(otherTeams: [known]) { app in
            let pem = Data(try key.pemRepresentation().utf8)
            guard FileManager.default.createFile(atPath: app.receivingKeyPath, contents: pem,
                                                 attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
            return try await body(app)
        }
    }

    var receivingKeyPath: String { directory.appendingPathComponent("receiving.p8").path }

    /// The receiving team's key in place of the server's, for `siwa apple transfer import`.
    var receivingTeam: [String: String] {
        ["APPLE_TEAM_ID": Self.receivingTeamID, "APPLE_KEY_ID": Self.receivingKeyID,
         "APPLE_PRIVATE_KEY_PATH": receivingKeyPath]
    }

    /// Stores `count` users with subs `001.<tag>.<n>` and e-mails `<sub>@example.com`, who never signed in here
    /// since the client id was recorded (none is).
    func seedUsers(_ count: Int, tag: String = "seed") async throws {
        let now = Date()
        for start in stride(from: 0, to: count, by: 100) {
            let statements = (start..<min(count, start + 100)).map { index in
                let sub = "001.\(tag).\(index)"
                return UserRepository.insert(User(name: "", username: sub, email: "\(sub)@example.com",
                                                  isPrivateEmail: false, siwaIdentifier: sub, createdAt: now))
            }
            try await server.services.database.write(statements)
        }
    }

    /// What a transfer may change of a user.
    struct TransferRow: Sendable, Equatable {
        var id: UUID
        var sub: String
        var email: String
        var isPrivateEmail: Bool
        var clientID: String?
        var transferSub: String?
        var transferTarget: String?
        var transferredAt: Date?
    }

    /// Every user, by id, as a transfer sees them.
    func transferRows(in database: (any DatabaseClient)? = nil) async throws -> [TransferRow] {
        try await (database ?? server.services.database).read(SQL("""
            SELECT id, siwa_identifier, email, is_private_email, apple_client_id, transfer_sub, transfer_target,
                transferred_at FROM users ORDER BY id
            """)) {
            TransferRow(id: try $0[0], sub: try $0[1], email: try $0[2], isPrivateEmail: try $0[3], clientID: try $0[4],
                        transferSub: try $0[5], transferTarget: try $0[6], transferredAt: try $0[7])
        }
    }

    /// The user whose sub is `sub`.
    func transferRow(sub: String) async throws -> TransferRow? {
        try await transferRows().first { $0.sub == sub }
    }

    /// Everything a refused command must leave as it was: the users as a transfer sees them, and how many bearer
    /// tokens, sessions, Apple tokens and shared settings there are.
    func snapshot() async throws -> String {
        var text = "\(try await transferRows())"
        for table in ["tokens", "sessions", "apple_tokens", "shared_settings"] { text += " \(table): \(try await count(table))" }
        return text
    }

    /// A second database of the same engine, migrated, holding a copy of this one's users as they are now: the
    /// receiving team's restored copy of the sender's database. Returns it and the environment naming it.
    func databaseCopy() async throws -> (database: any DatabaseClient, environment: [String: String]) {
        var configuration = server.configuration
        configuration.databasePath = directory.appendingPathComponent("copy.sqlite").path
        if configuration.databaseURL != nil {
            configuration.databaseURL = try PostgresURL(try await PostgresCluster.sharedDatabase(for: directory.path + "-copy"))
        }
        let copy = try await AppMigrations.openAndMigrate(configuration, logger: TestApp.quietLogger("copy"))
        let users = try await server.services.database.read(SQL("SELECT \(UserRepository.columns) FROM users"),
                                                           User.init(row:))
        try await copy.write(users.map(UserRepository.insert))
        var environment = ["DATABASE_PATH": configuration.databasePath]
        environment["DATABASE_URL"] = configuration.databaseURL?.uri
        return (copy, environment)
    }

    /// Users holding a transfer identifier.
    func usersWithIdentifier() async throws -> Int {
        try await server.services.database.readOne(SQL("SELECT COUNT(*) FROM users WHERE transfer_sub IS NOT NULL")) {
            try $0[0] as Int
        } ?? 0
    }

    /// Users who moved to the receiving team.
    func usersMoved() async throws -> Int {
        try await server.services.database.readOne(SQL("SELECT COUNT(*) FROM users WHERE transferred_at IS NOT NULL")) {
            try $0[0] as Int
        } ?? 0
    }

    /// Starts `siwa <arguments>` as a process with `extra` over `operatorEnvironment`, and returns it once `done()`
    /// reaches `count` (or a minute has passed): a run to kill half-way.
    func spawn(_ arguments: [String], _ extra: [String: String], once done: () async throws -> Int,
               reaches count: Int) async throws -> SiwaProcess {
        let run = try SiwaProcess(arguments, environment: operatorEnvironment.merging(extra) { $1 }, directory: directory)
        let deadline = ContinuousClock.now + .seconds(60)
        while try await done() < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return run
    }

    /// Posts Apple's notification of `event` for the user the sending team knew as `sub`, by their receiving team's
    /// `sub`, as Apple sends it after the transfer; returns the answer's `status` (`unknownUser` until they moved).
    func notifyReceivingTeam(_ event: String, sub: String) async throws -> String? {
        let payload = try FakeAppleNotifier.payload(
            event: event, subject: FakeAppleTransfers.teamSubject(sub, team: Self.receivingTeamID),
            audience: Self.iosClientID, email: nil, keys: keys)
        return try await sendJSON(.POST, "/api/apple/notifications", ["payload": payload]).json()["status"] as? String
    }

    /// An identity token as the stand-in issues it once the app moved to the receiving team: the user the sending
    /// team knew as `sub` has another `sub` here and, when asked about, carries `transferSub`.
    func movedToken(sub: String, email: String, transferSub: String?, audience: String = TestApp.iosClientID,
                    nonce: String? = nil) throws -> String {
        try keys.mintIdentityToken(IdentityTokenRequest(
            subject: FakeAppleTransfers.teamSubject(sub, team: Self.receivingTeamID), audience: audience, email: email,
            nonce: nonce, extraClaims: transferSub.map { ["transfer_sub": .string($0)] } ?? [:]))
    }
}
