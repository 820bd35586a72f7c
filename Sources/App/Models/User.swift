import Foundation

/// Someone who signed in with Apple.
public struct User: Sendable, Equatable {
    public var id: UUID
    /// Display name; Apple sends it only on the first sign-in, so it may be empty.
    public var name: String
    public var username: String
    public var email: String
    /// Whether `email` is an Apple private relay address.
    public var isPrivateEmail: Bool
    /// The `sub` claim of Apple's identity tokens: stable per user and team; unique.
    public var siwaIdentifier: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
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
