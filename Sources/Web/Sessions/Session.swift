import Foundation

/// The session of one request, installed by `SessionsMiddleware`: `req.session.data["userID"] = id`.
///
/// Confined to the request's task like `Request`. Changes are saved when the response leaves the middleware.
package final class Session {
    /// The id the client holds, nil for a session not stored yet. Never log it: it is a bearer credential.
    package internal(set) var id: String?
    /// The session's values.
    package var data: [String: String]
    let loadedData: [String: String]
    /// Every well-formed id the request's cookies carried: one, or more when `session` came twice (a sibling
    /// domain's cookie beside ours, RFC 6265 §8.6), in which case none of them was read.
    let sentIDs: [String]
    /// When a record saved now would expire.
    let newRecordExpiry: Date
    private(set) var rotationRequested = false
    private(set) var isDestroyed = false
    /// Whether the route stored this session's record itself (`adopt`): the middleware only sets the cookie.
    var isStoredByCaller = false

    init(id: String?, data: [String: String], sentIDs: [String] = [], newRecordExpiry: Date) {
        self.id = id
        self.data = data
        self.sentIDs = sentIDs
        self.newRecordExpiry = newRecordExpiry
        loadedData = data
    }

    /// The records a login or logout replaces: every session the request named, and the loaded one. Found by a
    /// review: with `session` sent twice, a sign-in ended neither.
    var replacedIDs: [String] {
        guard let id, !sentIDs.contains(id) else { return sentIDs }
        return sentIDs + [id]
    }

    /// Gives the session a new id when it is saved and deletes the record under the old one, so an id
    /// planted before login is worthless after it (session fixation, OWASP ASVS V3.2.1).
    package func rotate() {
        rotationRequested = true
        isDestroyed = false
    }

    /// Stores `userID` under `key` and rotates the id: call on login.
    package func authenticate(_ userID: String, key: String = "userID") {
        data[key] = userID
        rotate()
    }

    /// The value stored under `key` by `authenticate`, if any.
    package func authenticatedID(key: String = "userID") -> String? { data[key] }

    /// Ends the session: the record is deleted and the cookie expired.
    package func destroy() {
        data = [:]
        isDestroyed = true
        rotationRequested = false
    }

    var hasChanges: Bool { rotationRequested || data != loadedData }
}

extension Request {
    /// The session; `SessionsMiddleware` must run before this route (a programming error otherwise).
    package var session: Session {
        guard let installedSession else {
            preconditionFailure("req.session used on a route without SessionsMiddleware")
        }
        return installedSession
    }

    /// Whether `SessionsMiddleware` installed a session for this request.
    package var hasSession: Bool { installedSession != nil }
}
