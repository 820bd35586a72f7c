import App
import ArgumentParser
import FakeApple
import Foundation

/// `siwa mint`: prints an identity token signed with the stand-in's key.
struct Mint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an identity token signed by the local Apple stand-in's key (for tests and curl)."
    )

    @Option(help: "The user's Apple identifier (default: the one the stand-in gives --email, so one email is one user).")
    var sub: String?

    @Option(help: "Audience: the bundle id or Services ID.")
    var aud: String

    @Option(help: "The user's email.")
    var email: String = "jane@example.com"

    @Option(help: "A nonce to embed, as given (for /login/siwa/handle: the hex SHA-256 of the SIWA_STATE cookie).")
    var nonce: String?

    @Option(help: "Lifetime in seconds.")
    var lifetime: Int = 600

    @Flag(help: "Mark the email as a private relay address.")
    var privateEmail = false

    @Option(help: "File holding the stand-in's signing keys (created when missing).")
    var keyFile: String = FakeAppleKeys.defaultPath

    @Option(help: "Bulk mode: mint this many tokens for distinct users (sub and email numbered from --first), at most \(BulkMint.maximumCount).")
    var count: Int?

    @Option(help: "Bulk mode: the number of the first user (default: 0).")
    var first: Int?

    @Option(help: "Bulk mode: the file to write, one token a line (default: standard output).")
    var output: String?

    @Flag(help: "Bulk mode: write `state token` lines for the web flow's handle step, each token's nonce the hex SHA-256 of its state (the SIWA_STATE cookie).")
    var webStates = false

    func validate() throws {
        // Found by a review: an empty audience minted a token no server accepts.
        if aud.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--aud must name the bundle id or Services ID the token is for")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let count, count > BulkMint.maximumCount {
            throw ValidationError("--count must be at most \(BulkMint.maximumCount), not \(count)")
        }
        if count == nil, first != nil || output != nil || webStates {
            // Found by a review: they were ignored, and the one token went to standard output.
            throw ValidationError("--first, --output and --web-states are for bulk mode: give --count too")
        }
        let first = self.first ?? 0
        if first < 0 { throw ValidationError("--first must not be negative") }
        if let count, first.addingReportingOverflow(count).overflow {
            throw ValidationError("--first plus --count must be at most \(Int.max)")
        }
    }

    func run() async throws {
        let isNewKey = !FileManager.default.fileExists(atPath: keyFile)
        let keys = try FakeAppleKeys.loadOrCreate(path: keyFile)
        if isNewKey {
            // Found by a review: a mint in a folder without the stand-in's key made one silently, and the server
            // then refused its tokens' signature.
            OperatorFailure.writeError("siwa mint: no stand-in key at \(keyFile), so a new one was made there: a "
                                       + "server accepts these tokens only with a stand-in that serves this key (siwa "
                                       + "dev or siwa fake-apple, with --key-file \(keyFile))")
        }
        if let count {
            let bulk = BulkMint(keys: keys, audience: aud, lifetime: TimeInterval(lifetime),
                                privateEmail: privateEmail, webStates: webStates)
            let first = self.first ?? 0
            let lines = try await bulk.mint(users: first..<(first + count))
            try OperatorFailure.report { try BulkMint.write(lines, to: output) }
            return
        }
        let token = try keys.mintIdentityToken(IdentityTokenRequest(
            subject: sub ?? FakeAppleKeys.subject(forEmail: email), audience: aud, email: email, isPrivateEmail: privateEmail,
            nonce: nonce, lifetime: TimeInterval(lifetime)
        ))
        print(token)
    }
}
