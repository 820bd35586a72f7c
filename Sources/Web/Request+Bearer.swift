extension Request {
    /// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is case-insensitive,
    /// RFC 9110 §11.1), or nil when absent, of another scheme, or empty.
    public var bearerToken: String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingSpaces()
        return token.isEmpty ? nil : String(token)
    }
}

/// Refuses requests with 401 unless an earlier middleware logged in a value of type `T` (`req.auth.login`).
public struct GuardMiddleware<T>: Middleware {
    let reason: String?

    /// - Parameter reason: The 401's reason; "Unauthorized" when nil.
    public init(_ type: T.Type = T.self, reason: String? = nil) {
        self.reason = reason
    }

    public func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        guard request.auth.has(T.self) else { throw Abort(.unauthorized, reason: reason) }
        return try await next.respond(to: request)
    }
}
