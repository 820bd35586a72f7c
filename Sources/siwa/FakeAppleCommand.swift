import App
import ArgumentParser
import FakeApple

/// `siwa fake-apple`: the local Apple stand-in.
struct FakeAppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-apple",
        abstract: "Run a local stand-in for appleid.apple.com: keys, token, revoke, usermigrationinfo and an authorize page.",
        subcommands: [FakeAppleServe.self, FakeAppleNotify.self],
        defaultSubcommand: FakeAppleServe.self
    )
}

struct FakeAppleServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the stand-in (default).")

    @Option(help: "Address to listen on.")
    var hostname: String = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port: Int = 9090

    @Option(help: "File holding the stand-in's signing keys (created when missing).")
    var keyFile: String = FakeAppleKeys.defaultPath

    @Option(name: [.customLong("client-secret-key"), .customLong("client-secret-public-key")],
            help: ArgumentHelp("The .p8 (or its PEM public half) client secrets must be signed with; default: "
                + "APPLE_PRIVATE_KEY_PATH from the environment or .env, else the development key beside --key-file."))
    var clientSecretKey: String?

    @Option(help: "The team id client secrets must name (iss); default: APPLE_TEAM_ID with that key, else the development one.")
    var teamID: String?

    @Option(help: "The key id client secrets must name (kid); default: APPLE_KEY_ID with that key, else the development one.")
    var keyID: String?

    @Option(name: .customLong("team"),
            help: ArgumentHelp("Another team's key the stand-in knows too, as TEAM_ID:KEY_ID:PATH (a .p8), to "
                + "rehearse moving the app to that team; repeatable.", valueName: "team-key"))
    var teams: [String] = []

    @Option(name: .customLong("web-client"),
            help: ArgumentHelp("A Services ID and one of its return URLs, as SERVICES_ID=URL, that /auth/authorize "
                + "takes, as registered at Apple; repeatable. With none, it takes any.", valueName: "client"))
    var webClients: [String] = []

    func validate() throws {
        try PortOption.check(port, "--port")
        _ = try registeredWebClients()
    }

    /// `--web-client` values by Services ID.
    private func registeredWebClients() throws -> [String: [String]] {
        var clients: [String: [String]] = [:]
        for value in webClients {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            // A return URL has no fragment (RFC 6749 §3.1.2), which `/auth/authorize` would then never match.
            guard parts.count == 2, !parts[0].isEmpty, parts[1].hasPrefix("http"), !parts[1].contains("#") else {
                throw ValidationError("--web-client must be SERVICES_ID=URL (no #fragment), such as "
                    + "com.example.web=https://example.com/login/siwa/callback")
            }
            clients[parts[0], default: []].append(parts[1])
        }
        return clients
    }

    func run() async throws {
        try PortOption.checkFree(hostname: hostname, port: port, of: "the Apple stand-in", option: "--port")
        try await FakeAppleServer.runUntilSignalled(
            hostname: hostname, port: port, keyFile: keyFile, clientSecretKeyPath: clientSecretKey, teamID: teamID,
            keyID: keyID, otherTeams: teams, webClients: try registeredWebClients()
        )
    }
}

struct FakeAppleNotify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Send a signed server-to-server notification to a server, as Apple does."
    )

    @Option(help: """
        Event type: email-disabled, email-enabled, consent-revoked, account-delete (also spelled account-deleted); \
        any other is sent as it is, as a type the server does not know.
        """)
    var event: String

    @Option(help: "The user's Apple identifier (the identity token's sub).")
    var sub: String

    @Option(help: "Audience: the client id the notification is for.")
    var aud: String

    @Option(help: "Where to POST it.")
    var url: String = "http://127.0.0.1:8080/api/apple/notifications"

    @Option(help: "The user's (relay) email, for email events.")
    var email: String?

    @Option(help: "File holding the stand-in's signing keys, which must exist (the running stand-in's).")
    var keyFile: String = FakeAppleKeys.defaultPath

    /// Prints the server's status and answer (`applied`, `duplicate`, `unknownUser`, … or why it refused); exits 1
    /// unless the status is 2xx, so a script can tell a refused notification.
    func run() async throws {
        let (status, answer) = try await FakeAppleNotifier.send(
            event: event, subject: sub, audience: aud, email: email, to: url, keyFile: keyFile
        )
        print("Server answered \(status)" + (answer.map { ": \($0.prefix(200))" } ?? "") + ".")
        guard (200..<300).contains(status) else { throw ExitCode(1) }
    }
}
