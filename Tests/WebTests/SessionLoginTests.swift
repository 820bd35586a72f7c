import Foundation
import HTTPCore
import Testing
@testable import Web

/// `SessionsMiddleware(loadsSessions: false)` and `SessionLogin`: a sign-in step that stores its session in its own
/// write. The cookie's record is not read, nothing is written by the middleware, and the cookie is set once the
/// route adopts the login.
struct SessionLoginTests {
    /// `SessionsTests.app`, plus steps behind a middleware that does not load sessions; the login step writes to
    /// the store itself, standing in for a sign-in's transaction.
    static func app(store: SessionsTests.CountingStore, clock: SessionsTests.TestClock) -> Application {
        let app = SessionsTests.app(store: store, clock: clock)
        let steps = app.grouped(SessionsMiddleware(store: store, loadsSessions: false, now: { clock.now }))
        steps.post("step", "login", ":user") { req in
            let login = try req.session.newLogin()
            for replaced in login.replacedIDs { await store.inner.delete(id: replaced) }
            await store.inner.save(id: login.id, record: SessionRecord(data: ["userID": try req.parameters.require("user")],
                                                                       expiresAt: login.expiresAt))
            req.session.adopt(login, userID: try req.parameters.require("user"))
            return HTTPStatus.noContent
        }
        steps.post("step", "refuse") { req -> HTTPStatus in
            _ = try req.session.newLogin()
            throw Abort(.unauthorized)
        }
        steps.get("step", "who") { req in req.session.authenticatedID() ?? "anonymous" }
        return app
    }

    /// The app, its store and clock, and the id of a session signed in as `u1` the usual way.
    private static func signedIn() async throws
        -> (app: Application, store: SessionsTests.CountingStore, clock: SessionsTests.TestClock, id: String)
    {
        let clock = SessionsTests.TestClock()
        let store = SessionsTests.CountingStore(inner: MemorySessionStore(now: { clock.now }))
        let app = Self.app(store: store, clock: clock)
        let id = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        return (app, store, clock, id)
    }

    @Test func aStepReadsNoSessionAndLeavesTheCookieAlone() async throws {
        let (app, store, _, id) = try await Self.signedIn()
        let loadsBefore = await store.loads
        let who = try await app.testing.send(.GET, "/step/who", headers: ["Cookie": "session=\(id)"])
        #expect(who.text == "anonymous", "the record is not read")
        #expect(who.setCookies.isEmpty, "nor is the cookie expired")
        #expect(await store.loads == loadsBefore)
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"]).text == "u1")
    }

    @Test func anAdoptedLoginReplacesTheOldRecordWithoutAMiddlewareWrite() async throws {
        let (app, store, clock, old) = try await Self.signedIn()
        let (saves, deletes) = (await store.saves, await store.deletes)
        let login = try await app.testing.send(.POST, "/step/login/u2", headers: ["Cookie": "session=\(old)"])
        let fresh = try #require(login.cookies["session"])
        #expect(fresh != old)
        #expect(login.setCookies == ["session=\(fresh); Path=/; HttpOnly; SameSite=Lax"])
        #expect(await store.saves == saves, "the route wrote it, not the middleware")
        #expect(await store.deletes == deletes)
        #expect(await store.inner.load(id: old) == nil)
        #expect(await store.inner.load(id: fresh)?.expiresAt == clock.now + SessionsMiddleware.defaultExpiry)
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(fresh)"]).text == "u2")
    }

    @Test func aRefusedStepSetsNoCookieAndKeepsTheOldSession() async throws {
        let (app, _, _, old) = try await Self.signedIn()
        let refused = try await app.testing.send(.POST, "/step/refuse", headers: ["Cookie": "session=\(old)"])
        #expect(refused.status == .unauthorized)
        #expect(refused.setCookies.isEmpty)
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(old)"]).text == "u1")
    }
}
