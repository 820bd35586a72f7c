import Foundation

/// A cookie to send with `Set-Cookie` (RFC 6265 §4.1).
package struct HTTPCookie: Sendable, Equatable {
    package var name: String
    package var value: String
    /// Seconds until the cookie expires (§5.2.2); zero or less deletes it.
    package var maxAge: Int?
    /// When the cookie expires (§5.2.1), for clients that ignore `Max-Age`.
    package var expires: Date?
    package var path: String?
    package var domain: String?
    /// Only sent over HTTPS (§5.2.5).
    package var secure: Bool
    /// Hidden from scripts (§5.2.6).
    package var httpOnly: Bool
    /// `.unset` sends no attribute (browsers then treat the cookie as `Lax`).
    package var sameSite: SameSite

    /// When the cookie is sent with cross-site requests (RFC 6265bis §5.4.7).
    /// Not optional on purpose: `sameSite: .none` on an optional would silently mean nil.
    package enum SameSite: String, Sendable {
        /// No `SameSite` attribute.
        case unset = ""
        case strict = "Strict"
        case lax = "Lax"
        /// Sent cross-site too; browsers require `Secure` with it, so `serialized()` does as well.
        case none = "None"
    }

    package init(name: String, value: String, maxAge: Int? = nil, expires: Date? = nil, path: String? = "/",
                domain: String? = nil, secure: Bool = false, httpOnly: Bool = false, sameSite: SameSite = .unset) {
        self.name = name
        self.value = value
        self.maxAge = maxAge
        self.expires = expires
        self.path = path
        self.domain = domain
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }
}

/// Why a cookie cannot be sent.
package enum CookieError: Error, Equatable, CustomStringConvertible {
    /// The name is empty or not an RFC 9110 token.
    case invalidName(String)
    /// The value has a character outside cookie-octet (§4.1.1): space, `"`, `,`, `;`, `\`, controls, non-ASCII.
    case invalidValue(cookie: String)
    /// Path or Domain contains a control character or `;` (§4.1.1 av-octet).
    case invalidAttribute(cookie: String, attribute: String)
    /// `SameSite=None` without `Secure` is rejected by browsers.
    case sameSiteNoneRequiresSecure(cookie: String)

    package var description: String {
        switch self {
        case .invalidName(let name): "Invalid cookie name '\(name)'"
        case .invalidValue(let cookie): "Invalid characters in the value of cookie '\(cookie)'"
        case .invalidAttribute(let cookie, let attribute): "Invalid \(attribute) attribute of cookie '\(cookie)'"
        case .sameSiteNoneRequiresSecure(let cookie): "Cookie '\(cookie)' has SameSite=None without Secure"
        }
    }
}
