/// The cookies a response sets, in order; setting a cookie with the same name, path and domain replaces it.
package struct ResponseCookies: Sendable {
    private(set) var cookies: [HTTPCookie] = []
    private(set) var headerValues: [String] = []

    package init() {}

    /// Adds `cookie`; throws `CookieError` when its name, value or attributes cannot be sent (RFC 6265 §4.1.1).
    package mutating func set(_ cookie: HTTPCookie) throws {
        let line = try cookie.serialized()
        if let index = cookies.firstIndex(where: { $0.name == cookie.name && $0.path == cookie.path && $0.domain == cookie.domain }) {
            cookies[index] = cookie
            headerValues[index] = line
        } else {
            cookies.append(cookie)
            headerValues.append(line)
        }
    }

    /// Tells the client to drop cookie `name` (empty value, `Max-Age=0` and an `Expires` in the past,
    /// RFC 6265 §5.3 steps 3-4); `path` and `domain` must match the ones it was set with. Invalid names are ignored.
    package mutating func expire(_ name: String, path: String? = "/", domain: String? = nil) {
        let cookie = HTTPCookie(name: name, value: "", maxAge: 0, expires: .init(timeIntervalSince1970: 0),
                                path: path, domain: domain, httpOnly: true)
        try? set(cookie)
    }

    /// The cookie being set with `name`, if any.
    package subscript(name: String) -> HTTPCookie? { cookies.first { $0.name == name } }

    package var all: [HTTPCookie] { cookies }
}
