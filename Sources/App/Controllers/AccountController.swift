import CryptoCore
import Foundation
import HTTPCore
import JSON
import Web

/// Deleting an account from the web (App Store rule 5.1.1(v)): behind the session and a CSRF token kept in it.
struct AccountController: RouteCollection {
    let accounts: AccountService

    /// The session key of the CSRF token the delete form carries.
    static let csrfKey = "csrf"

    func boot(routes: any RoutesBuilder) throws {
        routes.post("account", "delete", use: delete)
    }

    struct DeleteForm: Decodable, Sendable {
        var csrf: String
    }

    @Sendable func delete(_ req: Request) async throws -> Response {
        guard let user = try await accounts.user(inSession: req.sessionUserID) else {
            throw Abort(.unauthorized, reason: "Log in to delete your account.")
        }
        let form = try req.content.decode(DeleteForm.self, accepting: .form)
        guard let expected = req.session.data[Self.csrfKey], constantTimeEquals(form.csrf, expected) else {
            throw Abort(.forbidden, reason: "This form has expired. Reload the page and try again.")
        }
        try await accounts.deleteAccount(user, logger: req.logger)
        req.session.destroy()
        return .redirect(to: "/")
    }

    /// The session's CSRF token, created on first use.
    static func csrfToken(for req: Request) throws -> String {
        if let token = req.session.data[csrfKey] { return token }
        let token = Base64URL.encode(try SecureRandom.bytes(count: 32))
        req.session.data[csrfKey] = token
        return token
    }
}
