import App
import CryptoCore
import FakeApple
import Foundation

/// `siwa mint --count N`: identity tokens for many distinct users at once, signed on every core, for load tests.
/// User `i` has `sub` `000000.bench<i, 12 digits>.0000` and email `bench<i>@example.com`. With `webStates`, each line
/// is `state token`: a `SIWA_STATE` cookie value and a token whose nonce is that state's hex SHA-256, as Apple
/// issues them for the web flow's handle step.
struct BulkMint: Sendable {
    let keys: FakeAppleKeys
    let audience: String
    let lifetime: TimeInterval
    let privateEmail: Bool
    var webStates = false

    /// The most tokens one run mints (`--count`): they are all held in memory before they are written, at about a
    /// kilobyte each. The benchmarks use 60,000.
    static let maximumCount = 1_000_000

    /// The `SIWA_STATE` of bench user `index`: 43 base64url characters, like the server's own 32 random bytes.
    static func state(_ index: Int) -> String {
        Base64URL.encode(SHA256.hash("siwa bench state \(index)"))
    }

    /// The `sub` of bench user `index`, shaped like Apple's.
    static func subject(_ index: Int) -> String {
        let digits = String(index)
        return "000000.bench" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".0000"
    }

    /// One token per user in `users`, in order.
    func mint(users: Range<Int>) async throws -> [String] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = users.count / workers + (users.count % workers == 0 ? 0 : 1)
        let now = Date()
        return try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            // Each worker's part, computed without passing Int.max when the users end there (`--first` near it).
            var shares: [Range<Int>] = []
            var from = users.lowerBound
            while from < users.upperBound {
                let to = users.upperBound - from <= chunk ? users.upperBound : from + chunk
                shares.append(from..<to)
                from = to
            }
            for (worker, part) in shares.enumerated() {
                group.addTask {
                    let tokens = try part.map { index in
                        let state = webStates ? Self.state(index) : nil
                        let token = try keys.mintIdentityToken(IdentityTokenRequest(
                            subject: Self.subject(index), audience: audience, email: "bench\(index)@example.com",
                            isPrivateEmail: privateEmail, nonce: state.map(SHA256.hexHash), lifetime: lifetime
                        ), now: now)
                        return state.map { "\($0) \(token)" } ?? token
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
        // Mode 0600, and never through a link planted at `path`: the file holds signed tokens (and, with
        // --web-states, state cookies). Found by a review.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw OperatorError("--output: cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)  // a file that was there keeps its mode through O_TRUNC
        let written = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        do {
            try written.write(contentsOf: Data(text.utf8))
        } catch {
            throw OperatorError("--output: cannot write \(path): \((error as NSError).localizedDescription)")
        }
    }
}
