import App
import FakeApple
import Foundation

/// `siwa mint --count N`: identity tokens for many distinct users at once, signed on every core, for load tests.
/// User `i` has `sub` `000000.bench<i, 12 digits>.0000` and email `bench<i>@example.com`.
struct BulkMint: Sendable {
    let keys: FakeAppleKeys
    let audience: String
    let lifetime: TimeInterval
    let privateEmail: Bool

    /// The `sub` of bench user `index`, shaped like Apple's.
    static func subject(_ index: Int) -> String {
        let digits = String(index)
        return "000000.bench" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".0000"
    }

    /// One token per user in `users`, in order.
    func mint(users: Range<Int>) async throws -> [String] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = (users.count + workers - 1) / workers
        let now = Date()
        return try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for worker in 0..<workers {
                let start = users.lowerBound + worker * chunk
                let end = min(users.upperBound, start + chunk)
                guard start < end else { continue }
                group.addTask {
                    let tokens = try (start..<end).map { index in
                        try keys.mintIdentityToken(IdentityTokenRequest(
                            subject: Self.subject(index), audience: audience, email: "bench\(index)@example.com",
                            isPrivateEmail: privateEmail, lifetime: lifetime
                        ), now: now)
                    }
                    return (worker, tokens)
                }
            }
            var parts: [(Int, [String])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// Writes `lines` to `path`, or to standard output when it is nil.
    static func write(_ lines: [String], to path: String?) throws {
        let text = lines.joined(separator: "\n") + "\n"
        guard let path else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
