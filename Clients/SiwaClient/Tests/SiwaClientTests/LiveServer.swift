import Foundation
import SiwaClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The running server the tests talk to, which `Scripts/check-openapi` starts with the Apple stand-in:
/// `SIWA_TEST_SERVER_URL` (a server whose Apple is the stand-in, at `SIWA_TEST_APPLE_URL`), `SIWA_TEST_UNAVAILABLE_URL`
/// (one whose Apple cannot be reached), and `SIWA_BINARY` with `SIWA_TEST_KEY_FILE` to mint identity tokens with the
/// stand-in's key.
/// Without them the live tests are skipped; under `CI=true` they fail instead.
enum LiveServer {
    static let environment = ProcessInfo.processInfo.environment
    /// The bundle id `siwa dev` and the check script configure (`IOS_APPLICATION_IDENTIFIER`).
    static let audience = "dev.siwa.ios"

    static var isConfigured: Bool {
        ["SIWA_TEST_SERVER_URL", "SIWA_TEST_APPLE_URL", "SIWA_TEST_UNAVAILABLE_URL", "SIWA_BINARY", "SIWA_TEST_KEY_FILE"]
            .allSatisfy { environment[$0] != nil } || environment["CI"] == "true"
    }

    static func url(_ name: String) throws -> URL {
        guard let text = environment[name], let url = URL(string: text) else { throw LiveServerError.missing(name) }
        return url
    }

    static var serverURL: URL { get throws { try url("SIWA_TEST_SERVER_URL") } }
    static var unavailableURL: URL { get throws { try url("SIWA_TEST_UNAVAILABLE_URL") } }

    /// A user of its own for one test: a fresh `sub` and email.
    struct User {
        let sub = "000001.\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")).0001"
        var email: String { "client-\(sub.dropFirst(7).prefix(12))@example.com" }
    }

    /// An identity token for `user`, signed by the stand-in's key (`siwa mint`).
    static func mint(for user: User) throws -> String {
        guard let binary = environment["SIWA_BINARY"], let keyFile = environment["SIWA_TEST_KEY_FILE"] else {
            throw LiveServerError.missing("SIWA_BINARY and SIWA_TEST_KEY_FILE")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["mint", "--aud", audience, "--sub", user.sub, "--email", user.email, "--key-file", keyFile]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw LiveServerError.mintFailed(process.terminationStatus) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

enum LiveServerError: Error {
    case missing(String)
    case mintFailed(Int32)
    case standIn(String)
}

/// What the stand-in's `/dev/app-credential` answers: what `ASAuthorizationAppleIDCredential` gives an app.
struct StandInCredential: Decodable {
    var identityToken: String
    var authorizationCode: String
    var user: String

    /// A fresh user's credential, its token carrying `nonce` when given.
    static func make(email: String, nonce: String? = nil) async throws -> StandInCredential {
        var request = URLRequest(url: try LiveServer.url("SIWA_TEST_APPLE_URL").appendingPathComponent("dev/app-credential"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let fields = ["client_id=\(LiveServer.audience)", "email=\(email)"] + (nonce.map { ["nonce=\($0)"] } ?? [])
        request.httpBody = Data(fields.joined(separator: "&").utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw LiveServerError.standIn(String(decoding: data, as: UTF8.self))
        }
        return try JSONDecoder().decode(StandInCredential.self, from: data)
    }

    var credential: AppleIDCredential {
        AppleIDCredential(identityToken: Data(identityToken.utf8), authorizationCode: Data(authorizationCode.utf8),
                          user: user)
    }
}
