import Foundation

/// The browser session a web sign-in starts, written in the sign-in's own transaction: a new id at every login
/// (OWASP ASVS V3.2.1), when it expires, and the session it replaces, if the browser had one. The web layer makes
/// it from the request's session and hands the cookie out once the sign-in has committed.
package struct BrowserLogin: Sendable {
    /// The new session's id, the cookie's value. Never log it: it is a bearer credential.
    package let id: String
    package let expiresAt: Date
    /// The ids the browser's cookies carried (one, or more when `session` came twice), whose records the same write
    /// deletes.
    package let replacedIDs: [String]
}
