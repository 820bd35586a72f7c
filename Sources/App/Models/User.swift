import Foundation

/// Someone who signed in with Apple.
package struct User: Sendable, Equatable {
    package var id: UUID
    /// Display name; Apple sends it only on the first sign-in, so it may be empty.
    package var name: String
    package var username: String
    package var email: String
    /// Whether `email` is an Apple private relay address.
    package var isPrivateEmail: Bool
    /// The `sub` claim of Apple's identity tokens: stable per user and team; unique.
    package var siwaIdentifier: String
    package var createdAt: Date
    package var updatedAt: Date

    package init(
        id: UUID = .timeOrdered(), name: String, username: String, email: String, isPrivateEmail: Bool,
        siwaIdentifier: String, createdAt: Date, updatedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.username = username
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.siwaIdentifier = siwaIdentifier
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }
}
