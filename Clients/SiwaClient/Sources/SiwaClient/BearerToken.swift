import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The bearer token a `SiwaClient` holds, shared with the middleware that sends it; guarded by a lock. Each change
/// is told to `onChange`, outside the lock, in the order the changes were made.
final class BearerToken: @unchecked Sendable {
    private let lock = NSLock()
    private var token: String?
    private let onChange: (@Sendable (String?) -> Void)?

    init(_ token: String?, onChange: (@Sendable (String?) -> Void)? = nil) {
        self.token = token
        self.onChange = onChange
    }

    var value: String? {
        get { lock.withLock { token } }
        set { set(if: { _ in true }, to: newValue) }
    }

    /// Forgets the token if it is still `sent`: a late answer about a token that was since replaced (signed out,
    /// then in again) leaves the new one alone.
    func clear(ifStill sent: String?) {
        set(if: { $0 == sent }, to: nil)
    }

    /// Sets the token to `newValue` when `condition` holds for the current one, and tells `onChange` of a change.
    private func set(if condition: (String?) -> Bool, to newValue: String?) {
        let changed = lock.withLock { () -> Bool in
            guard condition(token), token != newValue else { return false }
            token = newValue
            return true
        }
        if changed { onChange?(newValue) }
    }
}

/// Sends the app's own header fields (`SiwaClient.init(headers:)`) with every request.
struct HeadersMiddleware: ClientMiddleware {
    let fields: HTTPFields

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?)
    {
        var request = request
        for field in fields { request.headerFields[field.name] = field.value }
        return try await next(request, body, baseURL)
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
