import Foundation
import HTTPCore
import Storage
import TestSupport
import Testing
@testable import App

/// `siwa users show|export|delete` run as the operator runs them, beside a running server.
@Suite(.timeLimit(.minutes(2)))
struct UsersCommandTests {
    /// A user signed in through the API with an app's authorization code: a bearer token and an Apple token.
    private func signIn(_ app: TestApp, subject: String, email: String) async throws -> (id: String, bearer: String) {
        let response = try await app.signInWithAuthorizationCode(subject: subject, email: email, name: "Jane Appleseed")
        #expect(response.status == .ok, "\(response.text)")
        let json = try response.json()
        let user = try #require(json["user"] as? [String: Any])
        return (try #require(user["id"] as? String), try #require(json["value"] as? String))
    }

    @Test func showFindsTheUserByIDSubOrEmailAndPrintsNoSecret() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.show", email: "show@example.com")
            for query in [user.id, "001.show", "SHOW@example.com"] {
                let result = try await app.command(["users", "show", query])
                #expect(result.status == 0, "\(result.output)")
                let json = try result.json()
                #expect(json["id"] as? String == user.id)
                #expect(json["sub"] as? String == "001.show")
                #expect(json["email"] as? String == "show@example.com")
                #expect(json["name"] as? String == "Jane Appleseed")
                #expect(json["appleClientIDs"] as? [String] == [TestApp.iosClientID])
                let tokens = try #require(json["bearerTokens"] as? [String: Any])
                #expect(tokens["count"] as? Int == 1)
                #expect((tokens["expiresAt"] as? [String])?.count == 1)
                #expect((json["sessions"] as? [String: Any])?["count"] as? Int == 0)
                #expect(json["createdAt"] is String && json["updatedAt"] is String)
                #expect(json["appleTokens"] == nil, "show prints counts; export the detail")
                #expect(!result.output.contains(user.bearer))
                #expect(!result.output.lowercased().contains("hash") && !result.output.contains("refresh"))
            }
        }
    }

    /// An email is found in any letter case, accented letters included, on both engines alike. Found by a review:
    /// SQLite's lower() folds ASCII only, so `émile.zoë@…` did not find `Émile.Zoë@…` there, and did on PostgreSQL.
    @Test func showFindsAnEmailWithAccentedLettersInAnyCase() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.emile", email: "Émile.Zoë@example.com")
            _ = try await signIn(app, subject: "001.other", email: "emile.zoe@example.com")
            for query in ["Émile.Zoë@example.com", "émile.zoë@example.com", "ÉMILE.ZOË@EXAMPLE.COM"] {
                let result = try await app.command(["users", "show", query])
                #expect(result.status == 0, "\(query): \(result.output)")
                #expect(try result.json()["id"] as? String == user.id, "\(query)")
            }
            #expect(try await app.command(["users", "show", "émile.zoé@example.com"]).status == 1, "another address")
        }
    }

    @Test func exportPrintsEverythingStoredWithTheSameRedactions() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.export", email: "export@example.com")
            let result = try await app.command(["users", "export", user.id])
            #expect(result.status == 0, "\(result.output)")
            let json = try result.json()
            #expect(json["emailForwardingEnabled"] as? Bool == true)
            let appleTokens = try #require(json["appleTokens"] as? [[String: Any]])
            #expect(appleTokens.count == 1)
            #expect(appleTokens.first?["clientID"] as? String == TestApp.iosClientID)
            #expect(Set(appleTokens.first?.keys.map { $0 } ?? []) == ["clientID", "createdAt"])
            #expect((json["bearerTokens"] as? [String: Any])?["createdAt"] as? [String] != nil)
            #expect(!result.output.contains(user.bearer))
            #expect(!result.output.lowercased().contains("hash") && !result.output.contains("refresh"))
        }
    }

    /// The times stored beside the user are exported too: a session's issue, Apple's last check of a refresh token,
    /// the last email event, the transfer's export, the consent revocation, the identity tokens' issue. Found by
    /// reviews: all were left out.
    @Test func exportCarriesEveryStoredTime() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.times", email: "times@example.com")
            let id = try #require(UUID(uuidString: user.id))
            let when = Date(timeIntervalSince1970: 1_800_000_000)
            try await app.server.services.database.write([
                SQL("UPDATE apple_tokens SET checked_at = ? WHERE user_id = ?", [when, id]),
                SQL("UPDATE users SET email_event_at = ?, transfer_exported_at = ?, transfer_target = 'TEAMB12345', "
                    + "email_set_at = ?, consent_revoked_at = ? WHERE id = ?", [when, when, when, when, id]),
                SQL("UPDATE tokens SET identity_issued_at = ? WHERE user_id = ?", [when, id]),
                SQL("INSERT INTO sessions (id, data, user_id, expires_at, created_at, identity_issued_at) "
                    + "VALUES ('s1', '{}', ?, ?, ?, ?)", [id, when.addingTimeInterval(3600), when, when]),
            ])
            let json = try await app.command(["users", "export", user.id]).json()
            let stamp = "2027-01-15T08:00:00Z"
            #expect((json["appleTokens"] as? [[String: Any]])?.first?["checkedAt"] as? String == stamp)
            #expect(json["emailEventAt"] as? String == stamp)
            #expect((json["transfer"] as? [String: Any])?["exportedAt"] as? String == stamp)
            #expect((json["sessions"] as? [String: Any])?["createdAt"] as? [String] == [stamp])
            // Found by a review: the consent revocation, the email's and the credentials' identity token times.
            #expect(json["consentRevokedAt"] as? String == stamp)
            #expect(json["emailSetAt"] as? String == stamp)
            #expect((json["sessions"] as? [String: Any])?["identityIssuedAt"] as? [String] == [stamp])
            #expect((json["bearerTokens"] as? [String: Any])?["identityIssuedAt"] as? [String] == [stamp])
            let show = try await app.command(["users", "show", user.id]).json()
            #expect(show["emailEventAt"] == nil && (show["sessions"] as? [String: Any])?["createdAt"] == nil)
            #expect(show["emailSetAt"] == nil && (show["bearerTokens"] as? [String: Any])?["identityIssuedAt"] == nil)
            #expect(show["consentRevokedAt"] as? String == stamp, "support sees why old tokens no longer sign in")
        }
    }

    /// Found by an audit against "everything stored about the user": the client id of a sign-in without a code and
    /// the user's part of an app transfer were stored and printed nowhere.
    @Test func showAndExportNameTheSignInsClientIDAndTheTransfer() async throws {
        try await TestApp.with { app in
            let signIn = try await app.sendJSON(.POST, "/api/users/siwa", [
                "token": try app.identityToken(subject: "001.nocode", email: "nocode@example.com"),
            ])
            let id = try #require(try signIn.json()["user"] as? [String: Any])["id"] as? String
            let shown = try await app.command(["users", "show", "001.nocode"])
            #expect(try shown.json()["appleClientIDs"] as? [String] == [TestApp.iosClientID], "\(shown.output)")
            #expect(try shown.json()["transfer"] == nil, "no transfer began")

            try await app.server.services.database.write(SQL(
                "UPDATE users SET transfer_sub = ?, transfer_target = ? WHERE siwa_identifier = ?",
                ["001.transfer.sub", "RECVTEAM01", "001.nocode"]))
            let exported = try await app.command(["users", "export", try #require(id)])
            #expect(exported.status == 0, "\(exported.output)")
            let transfer = try #require(try exported.json()["transfer"] as? [String: Any], "\(exported.output)")
            #expect(transfer["transferSub"] as? String == "001.transfer.sub")
            #expect(transfer["targetTeam"] as? String == "RECVTEAM01")
            #expect(transfer["transferredAt"] == nil)
        }
    }

    @Test func badInputIsOneLineAndChangesNothing() async throws {
        try await TestApp.with { app in
            _ = try await signIn(app, subject: "001.twin1", email: "twin@example.com")
            _ = try await signIn(app, subject: "001.twin2", email: "twin@example.com")
            let cases: [([String], String)] = [
                (["users", "show", "nobody@example.com"], "siwa: no user matches nobody@example.com"),
                (["users", "show", "twin@example.com"], "siwa: 2 users have the email twin@example.com; give one of their ids"),
                (["users", "export", "001.twin1"], "siwa: users export takes a user id (a UUID)"),
                (["users", "delete", UUID().uuidString.lowercased(), "--yes"], "siwa: no user has the id"),
                // Control characters in what was typed are written out: one line, no terminal escape. Found by an audit.
                (["users", "show", "x\nsecond\u{1B}[31m"], "siwa: no user matches x\\nsecond\\u{1b}[31m"),
            ]
            for (arguments, message) in cases {
                let result = try await app.command(arguments)
                #expect(result.status == 1)
                #expect(result.lines.count == 1)
                #expect(result.output.hasPrefix(message), "\(result.output)")
            }
            if PostgresCluster.testsUsePostgres {
                let noServer = try await app.command(["users", "show", "twin@example.com"],
                                               ["DATABASE_URL": "postgres://siwa:s3cret@127.0.0.1:9/siwa"])
                #expect(noServer.status == 1)
                #expect(noServer.output.hasPrefix("siwa: DATABASE_URL: cannot reach PostgreSQL at 127.0.0.1:9"))
                #expect(!noServer.output.contains("s3cret"))
                let badOption = try await app.command(["users", "show", "twin@example.com"],
                                                ["DATABASE_URL": "postgres://siwa:s3cret@127.0.0.1:9/siwa?sslmode=bogus"])
                #expect(badOption.status == 1)
                #expect(badOption.lines.count == 1)
                #expect(badOption.output.hasPrefix(
                    #"siwa: DATABASE_URL has an option libpq refuses: invalid sslmode value: "bogus""#))
                #expect(!badOption.output.contains("s3cret"))
            } else {
                let missing = app.directory.appendingPathComponent("none.sqlite").path
                let noDatabase = try await app.command(["users", "show", "twin@example.com"], ["DATABASE_PATH": missing])
                #expect(noDatabase.status == 1)
                #expect(noDatabase.output.hasPrefix("siwa: DATABASE_PATH: no database at \(missing)"))
                #expect(!FileManager.default.fileExists(atPath: missing))
            }
            #expect(try await app.count("users") == 2)
        }
    }

    @Test func deleteWithoutYesAndNoTerminalRefuses() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.keep", email: "keep@example.com")
            let result = try await app.command(["users", "delete", user.id])
            #expect(result.status == 1)
            #expect(result.lines == ["siwa: refusing to delete without --yes: standard input is not a terminal to ask on"])
            #expect(try await app.count("users") == 1)
            #expect(await app.apple.revocations().isEmpty)
        }
    }

    @Test func deleteRevokesAtAppleThenSignsTheUserOutEverywhere() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.gone", email: "gone@example.com")
            let other = try await signIn(app, subject: "001.stays", email: "stays@example.com")
            let result = try await app.command(["users", "delete", user.id, "--yes"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("Deleted user \(user.id)"))
            #expect(result.output.contains("Apple tokens revoked: 1"))
            let revocations = await app.apple.revocations()
            #expect(revocations.count == 1)
            #expect(revocations.first?.known == true)
            #expect(revocations.first?.clientID == TestApp.iosClientID)
            let me = try await app.send(.GET, "/api/users/me", headers: ["Authorization": "Bearer \(user.bearer)"])
            #expect(me.status == .unauthorized, "the running server no longer knows the token")
            let stays = try await app.send(.GET, "/api/users/me", headers: ["Authorization": "Bearer \(other.bearer)"])
            #expect(stays.status == .ok)
            #expect(try await app.count("users") == 1)
            #expect(try await app.count("tokens") == 1)
            #expect(try await app.count("apple_tokens") == 1)
        }
    }

    @Test func aRevocationAppleCannotTakeIsQueuedAndTheUserDeletedAnyway() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.outage", email: "outage@example.com")
            await app.apple.simulateOutage(true)
            let result = try await app.command(["users", "delete", user.id, "--yes"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("queued for `siwa apple retry-revocations`: 1"))
            #expect(try await app.count("users") == 0)
            #expect(try await app.count("pending_revocations") == 1)
        }
    }

    /// The database refuses the deletion after Apple revoked (another process holds the write lock): one line that
    /// says the user was not deleted and to run again, and the user is whole. Found by an audit: the line was only
    /// SQLite's error.
    @Test(.sqliteOnly) func aDeletionTheDatabaseRefusesSaysSoAndKeepsTheUser() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.locked", email: "locked@example.com")
            let holder = try Database(path: app.server.configuration.databasePath)
            try holder.execute(sql: "BEGIN IMMEDIATE")
            let refused = try await app.command(["users", "delete", user.id, "--yes"], ["DATABASE_BUSY_TIMEOUT_MS": "200"])
            try holder.execute(sql: "ROLLBACK")
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.lines.count == 1, "\(refused.output)")
            #expect(refused.output.hasPrefix("siwa: user \(user.id) was not deleted ("), "\(refused.output)")
            #expect(refused.output.contains("nothing of theirs was removed"))
            #expect(refused.output.hasSuffix("run the command again\n"))
            #expect(try await app.count("users") == 1)
            #expect(try await app.count("apple_tokens") == 1)
            let again = try await app.command(["users", "delete", user.id, "--yes"])
            #expect(again.status == 0, "\(again.output)")
            #expect(try await app.count("users") == 0)
        }
    }

    /// `siwa users delete <id>` on a terminal (a pseudo-terminal from script(1)), answered with `answer` once it
    /// asks, after `whenAsked` has run.
    private func deleteOnATerminal(_ app: TestApp, id: String, answer: String,
                                   whenAsked: () async throws -> Void = {}) async throws
        -> (status: Int32, output: String)
    {
        let siwa = try ChildProcess.builtProduct("siwa")
        let environment = app.operatorEnvironment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
        let command = "env \(environment) \(siwa) users delete \(id)"
        let process = try ChildProcess("/usr/bin/script", arguments: ["-qec", command, "/dev/null"],
                                       environment: ["PATH": "/usr/bin:/bin", "HOME": app.directory.path],
                                       directory: app.directory.path, input: .pipe, output: .pipe, error: .output)
        var output = Data()
        while let chunk = process.output?.availableData, !chunk.isEmpty {
            output += chunk
            if String(decoding: output, as: UTF8.self).contains("Type yes to delete:") { break }
        }
        try await whenAsked()
        process.input?.write(Data((answer + "\n").utf8))
        output += process.output?.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func deleteAsksOnATerminalAndDeletesOnlyOnYes() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.asked", email: "asked@example.com")
            let declined = try await deleteOnATerminal(app, id: user.id, answer: "no")
            #expect(declined.status == 1)
            #expect(declined.output.contains("Delete user \(user.id) (asked@example.com) with 1 bearer token(s), "
                + "0 session(s) and 1 Apple client(s)? Type yes to delete:"))
            #expect(declined.output.contains("not deleted: user \(user.id) is unchanged"))
            #expect(try await app.count("users") == 1)
            let confirmed = try await deleteOnATerminal(app, id: user.id, answer: "yes")
            #expect(confirmed.status == 0, "\(confirmed.output)")
            #expect(confirmed.output.contains("Deleted user \(user.id)"))
            #expect(try await app.count("users") == 0)
        }
    }

    /// The user is deleted by someone else (their own `DELETE /api/users/me`, a second command) while the command
    /// asks: it says there is no such user and exits 1, as a second deletion run after the first does. Found by an
    /// audit: both said they had deleted the user.
    @Test func aUserDeletedWhileTheCommandAsksIsReportedGone() async throws {
        try await TestApp.with { app in
            let user = try await signIn(app, subject: "001.twice", email: "twice@example.com")
            let result = try await deleteOnATerminal(app, id: user.id, answer: "yes") { () async throws in
                let deleted = try await app.sendJSON(.DELETE, "/api/users/me", [:], bearer: user.bearer)
                #expect(deleted.status == .noContent)
            }
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("siwa: no user has the id \(user.id)"), "\(result.output)")
            #expect(!result.output.contains("Deleted user"))
            #expect(await app.apple.revocations().count == 1, "the API's deletion revoked; the command had nothing left")
        }
    }
}
