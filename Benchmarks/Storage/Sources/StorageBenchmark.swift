import App
import Foundation
import Storage

/// Times sign-ins (one user + token write each) and token lookups through App's repositories.
struct StorageBenchmark: Sendable {
    let count: Int
    let concurrency: Int

    /// A distinct bearer token value: a version 7 id that grows with `run` and `index` (as the server's ids grow
    /// with time) and a fixed secret.
    static func value(_ run: Int, _ index: Int) -> String {
        var id = [UInt8](repeating: 0x5a, count: 16)
        let order = UInt64(run) << 32 | UInt64(index)
        for byte in 0..<6 { id[byte] = UInt8(truncatingIfNeeded: order >> (8 * (5 - byte))) }
        id[6] = 0x70
        id[8] = 0x80
        let uuid = UUID(uuid: (id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                               id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]))
        return BearerTokenValue.text(id: uuid, secret: [UInt8](repeating: 7, count: BearerTokenValue.secretBytes))
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
            let value = BearerTokenValue(Self.value(run, index))
            let token = BearerToken(id: value.id ?? UUID(), userID: user.id, valueHash: value.hash, createdAt: now,
                                    expiresAt: now.addingTimeInterval(3600))
            try await users.createUserAndToken(user, token: token)
        }
    }

    func lookups(_ pool: DatabasePool, run: Int, width: Int) async throws -> Double {
        let tokens = TokenRepository(pool: pool)
        return try await measure(width: width) { index in
            guard try await tokens.findUser(BearerTokenValue(Self.value(run, index))) != nil else {
                throw SQLiteError(extendedCode: 0, message: "token \(index) of run \(run) not found")
            }
        }
    }
}
