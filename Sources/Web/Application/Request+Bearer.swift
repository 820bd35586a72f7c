extension Request {
    /// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is case-insensitive,
    /// RFC 9110 §11.1), or nil when absent, of another scheme, or empty.
    /// Read byte by byte: leading spaces, the scheme up to the next space, then the rest after that one space,
    /// trimmed of spaces and tabs.
    /// - Throws: 400 `invalid_request` (RFC 6750 §3.1) when the request has more than one `Authorization` field:
    ///   it is not a list (RFC 9110 §11.6.2), and a proxy that reads another copy than ours would authorize
    ///   someone else.
    package var bearerToken: String? {
        get throws {
            do {
                return try headers.onlyValue(for: "Authorization").flatMap(Self.bearerToken(in:))
            } catch {
                throw Abort(.badRequest, reason: "More than one Authorization header",
                            headers: ["WWW-Authenticate": #"Bearer error="invalid_request""#])
            }
        }
    }

    private static func bearerToken(in value: String) -> String? {
        let bytes = value.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: " ") { index = bytes.index(after: index) }
        let schemeStart = index
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: " ") { index = bytes.index(after: index) }
        guard index < bytes.endIndex, Self.isBearer(bytes[schemeStart..<index]) else { return nil }
        let token = value[bytes.index(after: index)...].trimmingSpaces()
        return token.isEmpty ? nil : String(token)
    }

    /// `bearer` in any case (the letters of `bearer` have no non-ASCII upper or lower case forms).
    private static func isBearer(_ scheme: Substring.UTF8View) -> Bool {
        guard scheme.count == 6 else { return false }
        return zip(scheme, "bearer".utf8).allSatisfy { $0 | 0x20 == $1 }
    }
}

/// Refuses requests with 401 unless an earlier middleware logged in a value of type `T` (`req.auth.login`).
package struct GuardMiddleware<T>: Middleware {
    let reason: String?

    /// - Parameter reason: The 401's reason; "Unauthorized" when nil.
    package init(_ type: T.Type = T.self, reason: String? = nil) {
        self.reason = reason
    }

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        guard request.auth.has(T.self) else { throw Abort(.unauthorized, reason: reason) }
        return try await next.respond(to: request)
    }
}
