import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The bearer token a `SiwaClient` holds, shared with the middleware that sends it; guarded by a lock.
final class BearerToken: @unchecked Sendable {
    private let lock = NSLock()
    private var token: String?

    init(_ token: String?) { self.token = token }

    var value: String? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }

    /// Forgets the token if it is still `sent`: a late answer about a token that was since replaced (signed out,
    /// then in again) leaves the new one alone.
    func clear(ifStill sent: String?) {
        lock.withLock { if token == sent { token = nil } }
    }
}

/// Sends `Authorization: Bearer <token>` (RFC 6750 §2.1) on the operations the document secures with `bearerAuth`.
struct BearerMiddleware: ClientMiddleware {
    /// The operations of `Resources/openapi.yaml` with `security: [{bearerAuth: []}]`.
    static let securedOperations: Set<String> = ["getMe", "logOut", "deleteAccount"]

    let token: BearerToken

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?)
    {
        var request = request
        if Self.securedOperations.contains(operationID), let value = token.value {
            request.headerFields[.authorization] = "Bearer \(value)"
        }
        return try await next(request, body, baseURL)
    }
}
