#if canImport(AuthenticationServices)
import AuthenticationServices

extension AppleIDCredential {
    /// The values of the credential Sign in with Apple gave the app.
    /// - Parameter credential: What `authorizationController(controller:didCompleteWithAuthorization:)` received.
    public init(_ credential: ASAuthorizationAppleIDCredential) {
        self.init(identityToken: credential.identityToken, authorizationCode: credential.authorizationCode,
                  user: credential.user, fullName: credential.fullName, email: credential.email)
    }
}

extension SiwaClient {
    /// Signs in with the credential Sign in with Apple gave the app, and keeps the bearer token.
    ///
    /// On the main actor, where `ASAuthorizationControllerDelegate` and `SignInWithAppleButton` hand the credential
    /// over: its values are copied there, and only they cross to the request.
    /// - Parameters:
    ///   - credential: The `ASAuthorizationAppleIDCredential` of the authorization.
    ///   - nonce: The raw nonce whose SHA-256 the request to Apple carried, when it carried one.
    /// - Returns: The ids of the token and the user.
    /// - Throws: `SiwaError`.
    @MainActor @discardableResult
    public func signIn(credential: ASAuthorizationAppleIDCredential, nonce: String? = nil) async throws -> SignedIn {
        try await signIn(credential: AppleIDCredential(credential), nonce: nonce)
    }
}
#endif
