import Foundation
@testable import App

extension User {
    static func fixture(sub: String = "001234.abcdef", email: String = "jane@example.com", at date: Date) -> User {
        User(name: "Jane Doe", username: email, email: email, isPrivateEmail: false, siwaIdentifier: sub, createdAt: date)
    }
}

extension BearerToken {
    /// A token whose value is `BearerTokenValue.fixture(hash)`: the same `hash` gives the same id and value.
    static func fixture(userID: UUID, hash: UInt8 = 1, at date: Date, lifetime: TimeInterval = 3600) -> BearerToken {
        let value = BearerTokenValue.fixture(hash)
        return BearerToken(id: value.id ?? UUID(), userID: userID, valueHash: value.hash, createdAt: date,
                           expiresAt: date.addingTimeInterval(lifetime))
    }
}

extension BearerTokenValue {
    /// The id of `fixture(n)`: a version 7 UUID whose bytes are `n` but for the version and variant bits.
    static func fixtureID(_ n: UInt8) -> UUID {
        UUID(uuid: (n, n, n, n, n, n, 0x70 | (n & 0x0F), n, 0x80 | (n & 0x3F), n, n, n, n, n, n, n))
    }

    /// A well-formed value naming `fixtureID(n)`, with `n` repeated as its secret.
    static func fixture(_ n: UInt8) -> BearerTokenValue {
        BearerTokenValue(text(id: fixtureID(n), secret: [UInt8](repeating: n, count: secretBytes)))
    }
}
