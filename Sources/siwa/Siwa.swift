import ArgumentParser
import FakeApple

/// The `siwa` command: a Sign in with Apple server and its tools.
@main
struct Siwa: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "siwa",
        abstract: "Sign in with Apple server: identity-token verification, users, sessions and Apple's token lifecycle.",
        groupedSubcommands: [
            CommandGroup(name: "Server", subcommands: [Serve.self, Migrate.self, Routes.self]),
            CommandGroup(name: "Operator", subcommands: [
                DoctorCommand.self, BackupCommand.self, UsersCommand.self, AppleCommand.self,
            ]),
            CommandGroup(name: "Development", subcommands: [Dev.self, FakeAppleCommand.self, Mint.self]),
        ],
        defaultSubcommand: Serve.self
    )
}
