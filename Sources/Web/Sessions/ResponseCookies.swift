import Foundation
import HTTPCore

/// The cookies a response sets, as its `Set-Cookie` fields (`HTTPResponse.cookies`). Setting a cookie whose name,
/// path and domain one already has replaces that field where it stands (RFC 6265 §5.3 step 11 would let the later
/// one win anyway); every other field keeps its order.
package struct ResponseCookies: Sendable {
    /// The response's headers, `Set-Cookie` fields included.
    private(set) var headers: HTTPHeaders

    init(headers: HTTPHeaders) { self.headers = headers }

    /// Adds `cookie`; throws `CookieError` when its name, value or attributes cannot be sent (RFC 6265 §4.1.1).
    package mutating func set(_ cookie: HTTPCookie) throws {
        let line = try cookie.serialized()
        var fields = Array(headers)
        if let index = fields.firstIndex(where: {
            HTTPHeaders.equalsIgnoringCase($0.name, "Set-Cookie") && Self.identifies(cookie, $0.value)
        }) {
            fields[index].value = line
        } else {
            fields.append((name: "Set-Cookie", value: line))
        }
        headers = HTTPHeaders(fields)
    }

    /// Tells the client to drop cookie `name` (empty value, `Max-Age=0` and an `Expires` in the past,
    /// RFC 6265 §5.3 steps 3-4); `path` and `domain` must match the ones it was set with. Invalid names are ignored.
    package mutating func expire(_ name: String, path: String? = "/", domain: String? = nil, secure: Bool = false,
                                 sameSite: HTTPCookie.SameSite = .unset) {
        let cookie = HTTPCookie(name: name, value: "", maxAge: 0, expires: .init(timeIntervalSince1970: 0),
                                path: path, domain: domain, secure: secure, httpOnly: true, sameSite: sameSite)
        try? set(cookie)
    }

    /// The `Set-Cookie` lines, in order.
    package var lines: [String] { headers.values(for: "Set-Cookie") }

    /// Whether `line`, a `Set-Cookie` value this type wrote, sets the cookie `cookie` names: the same name, `Path`
    /// and `Domain` (the three that make a cookie's identity, RFC 6265 §5.3 step 11).
    private static func identifies(_ cookie: HTTPCookie, _ line: String) -> Bool {
        let parts = line.split(separator: ";", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, first.split(separator: "=", maxSplits: 1).first.map(String.init) == cookie.name
        else { return false }
        func attribute(_ name: String) -> String? {
            parts.dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + "=") }
                .map { String($0.dropFirst(name.count + 1)) }
        }
        return attribute("Path") == cookie.path && attribute("Domain") == cookie.domain
    }
}
