import Foundation

/// What `ASAuthorizationAppleIDCredential` gives an app after Sign in with Apple, as plain values.
///
/// On iOS and macOS pass the real credential to `SiwaClient.signIn(credential:nonce:)`; this type is what that
/// overload reads from it, and what code that has no `AuthenticationServices` (tests, Linux) builds by hand.
public struct AppleIDCredential: Sendable, Equatable {
    /// The identity token, a JWT in UTF-8.
    public var identityToken: Data?
    /// The short-lived authorization code, in UTF-8; the server exchanges it for Apple's refresh token.
    public var authorizationCode: Data?
    /// Apple's stable identifier of the user (the token's `sub`).
    public var user: String
    /// The user's name; Apple gives it on the first sign-in only.
    public var fullName: PersonNameComponents?
    /// The user's email; Apple gives it on the first sign-in only (the server reads it from the token).
    public var email: String?

    /// - Parameters:
    ///   - identityToken: `identityToken`.
    ///   - authorizationCode: `authorizationCode`.
    ///   - user: `user`.
    ///   - fullName: `fullName`.
    ///   - email: `email`.
    public init(identityToken: Data?, authorizationCode: Data?, user: String, fullName: PersonNameComponents? = nil,
                email: String? = nil) {
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.user = user
        self.fullName = fullName
        self.email = email
    }

    /// The name as one string, as `POST /api/users/siwa` takes it; nil when Apple gave none.
    var formattedName: String? {
        guard let fullName else { return nil }
        #if canImport(Darwin)
        let text = PersonNameComponentsFormatter.localizedString(from: fullName, style: .default)
        #else
        let text = [fullName.givenName, fullName.middleName, fullName.familyName].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: " ")
        #endif
        return text.isEmpty ? nil : text
    }
}
