import Foundation
import HTTPCore
import Storage
import Testing
import TestSupport
@testable import App

/// What a web sign-in costs the database, as `POST /api/users/siwa` is measured in `PostgresRoundTripTests`: one
/// read (has this nonce signed in before?) and one write transaction (the user, the nonce and the session
/// together), whether the browser sends an old session cookie or none.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WebSignInCostTests {
    /// On PostgreSQL every call is one round trip: one read and one write make two.
    @Test(.postgres) func handleIsOneReadAndOneWriteOnPostgres() async throws {
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        try await TestApp.with(lifecycle: false, configure: { $0.databaseURL = url }) { app in
            let pool = try #require(app.server.services.database as? PostgresPool)
            // The first sign-in fetches Apple's keys and keeps them in the database once: not a sign-in's cost.
            #expect(try await app.webSignIn(subject: "001.warm.up", email: "warm@example.com").status == .seeOther)
            try await app.waitForKeptKeySet()
            var before = pool.roundTrips
            let first = try await app.webSignIn(subject: "001.cost", email: "cost@example.com")
            #expect(first.status == .seeOther)
            #expect(pool.roundTrips - before == 2, "a new user's web sign-in")
            let session = try #require(first.cookieValue("session"))
            before = pool.roundTrips
            let again = try await app.webSignIn(subject: "001.cost", email: "cost@example.com",
                                                cookies: ["session": session])
            #expect(again.status == .seeOther)
            #expect(pool.roundTrips - before == 2, "a returning user's web sign-in over an old session")
            let state = try TestApp.newState()
            let result = try app.popupResult(state: state, subject: "001.cost", email: "cost@example.com")
            before = pool.roundTrips
            #expect(try await app.popup(result, state: state, cookies: ["session": session]).status == .ok)
            #expect(pool.roundTrips - before == 2, "the popup's sign-in")
        }
    }

    /// On SQLite the write is one job on the writer, whatever the browser sends.
    @Test(.sqliteOnly) func handleIsOneWriteOnSQLite() async throws {
        try await TestApp.with(lifecycle: false) { app in
            let pool = try #require(app.server.services.database as? DatabasePool)
            #expect(try await app.webSignIn(subject: "001.warm.up", email: "warm@example.com").status == .seeOther)
            try await app.waitForKeptKeySet()
            var before = pool.writeStatistics.writes
            let first = try await app.webSignIn(subject: "001.cost", email: "cost@example.com")
            #expect(first.status == .seeOther)
            #expect(pool.writeStatistics.writes - before == 1, "a new user's web sign-in")
            let session = try #require(first.cookieValue("session"))
            before = pool.writeStatistics.writes
            let again = try await app.webSignIn(subject: "001.cost", email: "cost@example.com",
                                                cookies: ["session": session])
            #expect(again.status == .seeOther)
            #expect(pool.writeStatistics.writes - before == 1, "a returning user's web sign-in over an old session")
        }
    }
}
