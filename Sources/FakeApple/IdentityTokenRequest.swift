import Foundation
import JSON

/// What the stand-in puts in an identity token it mints.
package struct IdentityTokenRequest: Sendable {
    package var subject: String
    package var audience: String
    package var email: String?
    package var isPrivateEmail: Bool
    package var nonce: String?
    package var lifetime: TimeInterval
    /// Extra claims (e.g. `c_hash`), added last.
    package var extraClaims: [String: JSONValue]

    package init(subject: String, audience: String, email: String?, isPrivateEmail: Bool = false,
                nonce: String? = nil, lifetime: TimeInterval = 600, extraClaims: [String: JSONValue] = [:]) {
        self.subject = subject
        self.audience = audience
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.nonce = nonce
        self.lifetime = lifetime
        self.extraClaims = extraClaims
    }
}
