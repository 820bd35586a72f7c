import CryptoCore
import Foundation

/// Loads the session named by the session cookie before the route runs, and saves it after, only when changed.
///
/// Ids are 32 random bytes in base64url; the cookie is `session=<id>; Path=/; HttpOnly; SameSite=Lax`, plus
/// `Secure` when the request came over HTTPS (the attributes README "The web flow" gives, in its order). It carries
/// no `Max-Age`: the browser keeps it for its session, and the server ends the session `expiry` after its last
/// change. A cookie that is malformed or names no live session is ignored (and expired).
///
/// With `loadsSessions` off (routes that only start sessions: the steps of a sign-in) the cookie's record is not
/// read, so the route costs no read for it: the route sees a signed-out session, the cookie is left as it is
/// unless the route logs in or out, and a login replaces the record the cookie named.
package struct SessionsMiddleware: Middleware {
    /// The default session lifetime, 7 days.
    package static let defaultExpiry: TimeInterval = 7 * 24 * 60 * 60
    /// Bytes of randomness in a session id.
    static let idByteCount = 32

    let store: any SessionStore
    let cookieName: String
    let expiry: TimeInterval
    let loadsSessions: Bool
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - store: Where sessions live between requests.
    ///   - cookieName: The cookie carrying the session id.
    ///   - expiry: How long a session lives after its last change.
    ///   - loadsSessions: Whether the record the cookie names is read before the route (off for sign-in steps).
    ///   - now: The clock, injected for tests.
    package init(store: any SessionStore, cookieName: String = "session", expiry: TimeInterval = defaultExpiry,
                loadsSessions: Bool = true, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.cookieName = cookieName
        self.expiry = expiry
        self.loadsSessions = loadsSessions
        self.now = now
    }

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        let sentID = request.cookies[cookieName].flatMap { Self.isSessionID($0) ? $0 : nil }
        var record: SessionRecord?
        if loadsSessions, let sentID, let loaded = try await store.load(id: sentID), loaded.expiresAt > now() {
            record = loaded
        }
        // One cookie is the one `cookies` gave; only without it (none, a malformed one, or several) are the values
        // read again, for the sessions a login or logout must end.
        let sentIDs = sentID.map { [$0] }
            ?? Array(Set(request.cookieValues(named: cookieName).filter(Self.isSessionID))).sorted()
        let session = Session(id: record == nil ? nil : sentID, data: record?.data ?? [:], sentIDs: sentIDs,
                              newRecordExpiry: now() + expiry)
        request.installedSession = session
        var response = try await next.respond(to: request)
        try await save(session, cookieSent: request.cookies[cookieName] != nil, request: request, response: &response)
        return response
    }

    private func save(_ session: Session, cookieSent: Bool, request: Request, response: inout Response) async throws {
        if session.isStoredByCaller, let id = session.id {
            try setCookie(id, request: request, response: &response)
            return
        }
        if session.isDestroyed {
            // Every session the request names ends, and the cookie is cleared: with `session` sent twice (one set by
            // a sibling domain, RFC 6265 §8.6) the server cannot tell its own, which a logout must end all the
            // same. Found by an audit: such a logout left the real session alive and its cookie in place.
            for id in session.replacedIDs { try await store.delete(id: id) }
            if !request.cookieValues(named: cookieName).isEmpty { expireCookie(request: request, response: &response) }
            return
        }
        guard session.hasChanges, !(session.id == nil && session.data.isEmpty) else {
            if cookieSent, session.id == nil, loadsSessions { expireCookie(request: request, response: &response) }
            return
        }
        let record = SessionRecord(data: session.data, expiresAt: now() + expiry)
        if let current = session.id, !session.rotationRequested {
            // Only the live record is changed: a session ended while this request ran (a logout elsewhere, a
            // `consent-revoked`, the account's deletion) stays ended, and the cookie goes. Found by a review: the save
            // was an upsert, and the first home page of a session brought it back.
            guard try await store.update(id: current, record: record) else {
                session.id = nil
                expireCookie(request: request, response: &response)
                return
            }
            try setCookie(current, request: request, response: &response)
            return
        }
        for old in session.replacedIDs { try await store.delete(id: old) }
        let id = try SystemRandom.base64URL(Self.idByteCount)
        try await store.save(id: id, record: record)
        session.id = id
        try setCookie(id, request: request, response: &response)
    }

    /// Whether a cookie value has the shape of a session id (`idByteCount` random bytes in base64url).
    static func isSessionID(_ value: String) -> Bool { Base64URL.isEncoding(value, ofByteCount: idByteCount) }

    /// The session cookie's removal, with the attributes it was set with.
    private func expireCookie(request: Request, response: inout Response) {
        response.cookies.expire(cookieName, path: "/", secure: request.isSecure, sameSite: .lax)
    }

    private func setCookie(_ id: String, request: Request, response: inout Response) throws {
        try response.cookies.set(HTTPCookie(name: cookieName, value: id, path: "/",
                                            secure: request.isSecure, httpOnly: true, sameSite: .lax))
    }
}
