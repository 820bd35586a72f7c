import ArgumentParser

/// The `siwa` command: a Sign in with Apple server and its tools.
@main
struct Siwa: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "siwa",
        abstract: "Sign in with Apple server: identity-token verification, users, sessions and Apple's token lifecycle.",
        subcommands: [
            Serve.self, Dev.self, Migrate.self, Routes.self, FakeAppleCommand.self, Mint.self, AppleCommand.self,
        ],
        defaultSubcommand: Serve.self
    )
}
