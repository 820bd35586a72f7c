import Foundation

/// What a sign-in gives: the token's id and the user's id. The bearer token itself stays in the `SiwaClient`.
public struct SignedIn: Sendable, Equatable {
    /// The bearer token's id (not the token).
    public var tokenID: String
    /// The user's id on the server.
    public var userID: String
}

/// The signed-in user, as `GET /api/users/me` answers.
public struct SiwaUser: Sendable, Equatable {
    /// The user's id on the server.
    public var id: String
    /// The first non-empty name the app sent at a sign-in (Apple gives it once), or empty.
    public var name: String
    /// The username the account was made with: the e-mail it first signed in with, which does not change.
    public var username: String
    /// The email from Apple's identity token.
    public var email: String
    /// Whether `email` is Apple's private relay address.
    public var isPrivateEmail: Bool
}
