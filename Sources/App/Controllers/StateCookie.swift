import Foundation
import Web

/// The `SIWA_STATE` cookie: the random state the login page gives Apple's button, which binds what comes back
/// from Apple to this browser (its hex SHA-256 is the identity token's `nonce`).
///
/// `SameSite=None` and `Secure` (RFC 6265bis §5.4.7): Apple's `form_post` is a cross-site POST, and the cookie must
/// come with it. `HttpOnly`: no script needs it, the popup's included (the state it posts comes from Apple).
enum StateCookie {
    /// The cookie's name.
    static let name = "SIWA_STATE"
    /// How long a state is good for, in seconds: the cookie's Max-Age.
    static let lifetime = 300

    /// Sets the cookie to `state` on `response`.
    static func set(_ state: String, on response: inout Response) throws {
        try response.cookies.set(HTTPCookie(
            name: name, value: state, maxAge: lifetime, path: "/", secure: true, httpOnly: true, sameSite: HTTPCookie.SameSite.none
        ))
    }

    /// `response` with the cookie cleared: a state signs in once.
    static func clearing(_ response: Response) -> Response {
        var response = response
        try? response.cookies.set(HTTPCookie(
            name: name, value: "", maxAge: 0, expires: Date(timeIntervalSince1970: 0), path: "/",
            secure: true, httpOnly: true, sameSite: HTTPCookie.SameSite.none
        ))
        return response
    }
}
