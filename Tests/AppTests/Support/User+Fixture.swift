import Foundation
@testable import App

extension User {
    static func fixture(sub: String = "001234.abcdef", email: String = "jane@example.com", at date: Date) -> User {
        User(name: "Jane Doe", username: email, email: email, isPrivateEmail: false, siwaIdentifier: sub, createdAt: date)
    }
}

extension BearerToken {
    static func fixture(userID: UUID, hash: UInt8 = 1, at date: Date, lifetime: TimeInterval = 3600) -> BearerToken {
        BearerToken(userID: userID, valueHash: [UInt8](repeating: hash, count: 32), createdAt: date,
                    expiresAt: date.addingTimeInterval(lifetime))
    }
}
