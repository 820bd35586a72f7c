import Foundation

/// A login whose session record the route writes itself, in the transaction that signs the user in, instead of
/// the session middleware writing it in a transaction of its own after the route.
///
/// The id is new, as at every login (OWASP ASVS V3.2.1, session fixation), and the record the request's cookie
/// named is the caller's to delete in that same write. Made by `Session.newLogin()`; the route hands it back with
/// `Session.adopt(_:userID:key:)` once its write has committed, and the middleware then only sets the cookie
/// (`session=<id>; Path=/; HttpOnly; SameSite=Lax`, RFC 6265 §4.1).
package struct SessionLogin: Sendable {
    /// The new session's id, the cookie's value. Never log it: it is a bearer credential.
    package let id: String
    /// When the new record expires: the middleware's `expiry` from now.
    package let expiresAt: Date
    /// The ids the request's cookies carried: the caller deletes the records under them in the same write.
    package let replacedIDs: [String]
}

extension Session {
    /// A new login for the caller to store; changes nothing until `adopt` is called, so a route that fails after
    /// this leaves the session (and the cookie) as they were.
    package func newLogin() throws -> SessionLogin {
        SessionLogin(id: try SystemRandom.base64URL(SessionsMiddleware.idByteCount), expiresAt: newRecordExpiry,
                     replacedIDs: replacedIDs)
    }

    /// Takes `login` as this request's session, stored by the caller with `userID` under `key`: the middleware
    /// sets its cookie and writes nothing.
    package func adopt(_ login: SessionLogin, userID: String, key: String = "userID") {
        id = login.id
        data = [key: userID]
        isStoredByCaller = true
    }
}
