import App
import ArgumentParser
import Foundation

/// `siwa mint`: prints an identity token signed with the stand-in's key.
struct Mint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an identity token signed by the local Apple stand-in's key (for tests and curl)."
    )

    @Option(help: "The user's Apple identifier.")
    var sub: String = "000001.\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")).0001"

    @Option(help: "Audience: the bundle id or Services ID.")
    var aud: String

    @Option(help: "The user's email.")
    var email: String = "jane@example.com"

    @Option(help: "A nonce to embed (raw; the token carries it as given).")
    var nonce: String?

    @Option(help: "Lifetime in seconds.")
    var lifetime: Int = 600

    @Flag(help: "Mark the email as a private relay address.")
    var privateEmail = false

    @Option(help: "File holding the stand-in's signing keys (created when missing).")
    var keyFile: String = FakeAppleKeys.defaultPath

    func run() async throws {
        let keys = try FakeAppleKeys.loadOrCreate(path: keyFile)
        let token = try keys.mintIdentityToken(IdentityTokenRequest(
            subject: sub, audience: aud, email: email, isPrivateEmail: privateEmail,
            nonce: nonce, lifetime: TimeInterval(lifetime)
        ))
        print(token)
    }
}
