import App
import Foundation
import Storage

/// Times sign-ins (one user + token write each) and token lookups through App's repositories.
struct StorageBenchmark: Sendable {
    let count: Int
    let concurrency: Int

    /// A distinct 32-byte stand-in for a token's SHA-256.
    static func hash(_ run: Int, _ index: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        for shift in 0..<8 { bytes[shift] = UInt8(truncatingIfNeeded: index >> (shift * 8)) }
        bytes[31] = UInt8(truncatingIfNeeded: run)
        return bytes
    }

    /// Runs `operation(index)` for every index below `count`, `width` at a time; returns operations per second.
    func measure(width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { try await operation(index) }
                next += 1
            }
            while try await group.next() != nil, next < count {
                let index = next
                group.addTask { try await operation(index) }
                next += 1
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    func signIns(_ pool: DatabasePool, run: Int, width: Int) async throws -> Double {
        let users = UserRepository(pool: pool)
        let now = Date()
        return try await measure(width: width) { index in
            let email = "u\(run)-\(index)@example.com"
            let user = User(name: "User \(index)", username: email, email: email, isPrivateEmail: false,
                            siwaIdentifier: "\(run).\(index)", createdAt: now)
            let token = BearerToken(userID: user.id, valueHash: Self.hash(run, index), createdAt: now,
                                    expiresAt: now.addingTimeInterval(3600))
            try await users.createUserAndToken(user, token: token)
        }
    }

    func lookups(_ pool: DatabasePool, run: Int, width: Int) async throws -> Double {
        let tokens = TokenRepository(pool: pool)
        return try await measure(width: width) { index in
            guard try await tokens.findUser(valueHash: Self.hash(run, index)) != nil else {
                throw SQLiteError(extendedCode: 0, message: "token \(index) of run \(run) not found")
            }
        }
    }
}
