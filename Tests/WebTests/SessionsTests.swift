import CryptoCore
import Foundation
import HTTPCore
import Synchronization
import Testing
@testable import Web

struct SessionsTests {
    /// A clock tests move by hand.
    final class TestClock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
    }

    /// Counts writes to check that unchanged sessions are not saved.
    actor CountingStore: SessionStore {
        let inner: MemorySessionStore
        var saves = 0
        var deletes = 0
        var loads = 0
        init(inner: MemorySessionStore) { self.inner = inner }
        func load(id: String) async throws -> SessionRecord? { loads += 1; return await inner.load(id: id) }
        func save(id: String, record: SessionRecord) async throws { saves += 1; await inner.save(id: id, record: record) }
        func update(id: String, record: SessionRecord) async throws -> Bool {
            saves += 1
            return await inner.update(id: id, record: record)
        }
        func delete(id: String) async throws { deletes += 1; await inner.delete(id: id) }
    }

    static func app(store: any SessionStore, clock: TestClock) -> Application {
        let app = Application.fixture()
        let sessions = app.grouped(SessionsMiddleware(store: store, now: { clock.now }))
        sessions.post("login", ":user") { req in
            req.session.authenticate(try req.parameters.require("user"))
            return HTTPStatus.noContent
        }
        sessions.get("me") { req in req.session.authenticatedID() ?? "anonymous" }
        sessions.post("note", ":text") { req in
            req.session.data["note"] = req.parameters.get("text")
            return HTTPStatus.noContent
        }
        sessions.post("logout") { req in
            req.session.destroy()
            return Response.redirect(to: "/")
        }
        return app
    }

    @Test func loginSetsASecureishCookieAndTheSessionIsRemembered() async throws {
        let clock = TestClock()
        let store = MemorySessionStore(now: { clock.now })
        let app = Self.app(store: store, clock: clock)
        let login = try await app.testing.send(.POST, "/login/u1")
        let line = try #require(login.setCookies.first)
        let id = try #require(login.cookies["session"])
        #expect(Base64URL.isEncoding(id, ofByteCount: 32))
        #expect(line == "session=\(id); Path=/; HttpOnly; SameSite=Lax")
        let me = try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"])
        #expect(me.text == "u1")
        #expect(me.setCookies.isEmpty)
        let anonymous = try await app.testing.send(.GET, "/me")
        #expect(anonymous.text == "anonymous")
        #expect(anonymous.setCookies.isEmpty)
    }

    @Test func cookieIsSecureOverHTTPS() async throws {
        let clock = TestClock()
        let app = Self.app(store: MemorySessionStore(now: { clock.now }), clock: clock)
        let login = try await app.testing.send(.POST, "/login/u1",
                                               connection: ConnectionInfo(remoteAddress: "1.2.3.4:5", isSecure: true))
        let id = try #require(login.cookies["session"])
        #expect(login.setCookies.first == "session=\(id); Path=/; HttpOnly; Secure; SameSite=Lax")
    }

    @Test func loginRotatesTheIdAndDeletesTheOldRecord() async throws {
        let clock = TestClock()
        let memory = MemorySessionStore(now: { clock.now })
        let app = Self.app(store: memory, clock: clock)
        let first = try await app.testing.send(.POST, "/note/hello")
        let planted = try #require(first.cookies["session"])
        let login = try await app.testing.send(.POST, "/login/u2", headers: ["Cookie": "session=\(planted)"])
        let fresh = try #require(login.cookies["session"])
        #expect(fresh != planted)
        #expect(await memory.load(id: planted) == nil)
        #expect(await memory.load(id: fresh)?.data == ["note": "hello", "userID": "u2"])
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(planted)"]).text == "anonymous")
    }

    @Test func unchangedSessionsAreNotWritten() async throws {
        let clock = TestClock()
        let store = CountingStore(inner: MemorySessionStore(now: { clock.now }))
        let app = Self.app(store: store, clock: clock)
        let id = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        for _ in 0..<3 { _ = try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"]) }
        _ = try await app.testing.send(.GET, "/me")
        #expect(await store.saves == 1)
        _ = try await app.testing.send(.POST, "/note/x", headers: ["Cookie": "session=\(id)"])
        #expect(await store.saves == 2)
        #expect(await store.deletes == 0)
    }

    @Test func destroyDeletesTheRecordAndExpiresTheCookie() async throws {
        let clock = TestClock()
        let memory = MemorySessionStore(now: { clock.now })
        let app = Self.app(store: memory, clock: clock)
        let id = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        let logout = try await app.testing.send(.POST, "/logout", headers: ["Cookie": "session=\(id)"])
        #expect(logout.status == .seeOther)
        #expect(logout.setCookies == [
            "session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax",
        ])
        #expect(await memory.load(id: id) == nil)
        #expect(await memory.count == 0)
    }

    /// The cookie goes with the attributes it came with: `Secure` over HTTPS, as when it was set.
    @Test func overHTTPSTheCookieIsExpiredSecure() async throws {
        let clock = TestClock()
        let app = Self.app(store: MemorySessionStore(now: { clock.now }), clock: clock)
        let tls = ConnectionInfo(remoteAddress: "127.0.0.1:50000", isSecure: true)
        let login = try await app.testing.send(.POST, "/login/u1", connection: tls)
        #expect(login.setCookies.first?.hasSuffix("; Path=/; HttpOnly; Secure; SameSite=Lax") == true)
        let id = try #require(login.cookies["session"])
        let logout = try await app.testing.send(.POST, "/logout", headers: ["Cookie": "session=\(id)"], connection: tls)
        #expect(logout.setCookies == [
            "session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; Secure; SameSite=Lax",
        ])
    }

    @Test func sessionsExpire() async throws {
        let clock = TestClock()
        let app = Self.app(store: MemorySessionStore(now: { clock.now }), clock: clock)
        let id = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        clock.advance(SessionsMiddleware.defaultExpiry - 1)
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"]).text == "u1")
        clock.advance(1)
        let expired = try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"])
        #expect(expired.text == "anonymous")
        #expect(expired.setCookies.first?.hasPrefix("session=; Max-Age=0") == true)
    }

    @Test(arguments: ["short", String(repeating: "A", count: 44), String(repeating: "A", count: 42) + "!"])
    func malformedSessionCookiesAreIgnored(value: String) async throws {
        let clock = TestClock()
        let store = CountingStore(inner: MemorySessionStore(now: { clock.now }))
        let app = Self.app(store: store, clock: clock)
        let response = try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(value)"])
        #expect(response.text == "anonymous")
        #expect(await store.saves == 0)
    }

    /// A cookie name sent more than once, in one `Cookie` field or two, is read as absent (a sibling subdomain may
    /// have planted a copy); other names are read as usual. A doubled session cookie signs the visitor out.
    @Test func aCookieSentTwiceCountsAsNone() async throws {
        #expect(CookieParser.parse(["a=1; b=2; a=3"]) == ["b": "2"])
        #expect(CookieParser.parse(["a=1; b=2", "a=1"]) == ["b": "2"])
        #expect(CookieParser.parse(["a=1; A=2"]) == ["a": "1", "A": "2"])
        let clock = TestClock()
        let app = Self.app(store: MemorySessionStore(now: { clock.now }), clock: clock)
        let id = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"]).text == "u1")
        for cookie in ["session=\(id); session=\(id)", "session=planted; session=\(id)", "session=\(id); session=x"] {
            #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": cookie]).text == "anonymous")
        }
    }

    /// A logout that carries `session` twice ends both sessions it names and clears the cookie: the server cannot
    /// tell its own copy from a planted one, and the user asked to be signed out. Found by an audit: the real
    /// session stayed alive, its cookie in place, and came back once the planted copy went.
    @Test func aLogoutWithTheCookieSentTwiceEndsEverySessionItNames() async throws {
        #expect(CookieParser.values(named: "a", in: ["a=1; b=2; a=\"3\"", "a=4"]) == ["1", "3", "4"])
        let clock = TestClock()
        let memory = MemorySessionStore(now: { clock.now })
        let app = Self.app(store: memory, clock: clock)
        let real = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        let planted = try #require(try await app.testing.send(.POST, "/login/attacker").cookies["session"])
        for cookie in ["session=\(planted); session=\(real)", "session=\(real); session=not-an-id"] {
            let logout = try await app.testing.send(.POST, "/logout", headers: ["Cookie": cookie])
            #expect(logout.setCookies == [
                "session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax",
            ], "\(cookie)")
        }
        #expect(await memory.load(id: real) == nil)
        #expect(await memory.load(id: planted) == nil)
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(real)"]).text == "anonymous")
    }

    /// A session that ends while a request that loaded it runs (a logout in another tab, a notification, the
    /// account's deletion) stays ended when that request saves a change, and its cookie is expired. Found by a
    /// review: the save was an upsert, and brought the session back.
    @Test func aSessionEndedWhileItsRequestRanStaysEnded() async throws {
        let clock = TestClock()
        let memory = MemorySessionStore(now: { clock.now })
        let app = Self.app(store: memory, clock: clock)
        app.grouped(SessionsMiddleware(store: memory, now: { clock.now })).post("ended-meanwhile") { req in
            if let id = req.session.id { await memory.delete(id: id) }
            req.session.data["csrf"] = "token"
            return HTTPStatus.noContent
        }
        let id = try #require(try await app.testing.send(.POST, "/login/u1").cookies["session"])
        let answer = try await app.testing.send(.POST, "/ended-meanwhile", headers: ["Cookie": "session=\(id)"])
        #expect(answer.setCookies == [
            "session=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax",
        ])
        #expect(await memory.load(id: id) == nil)
        #expect(await memory.count == 0)
        #expect(try await app.testing.send(.GET, "/me", headers: ["Cookie": "session=\(id)"]).text == "anonymous")
    }

    @Test func randomIdsDiffer() throws {
        let ids = try (0..<100).map { _ in try SystemRandom.base64URL(32) }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.count == 43 })
    }

    @Test func base64URLMatchesRFC4648Vectors() {
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }
}
