import ArgumentParser
import FakeApple
import Foundation

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

    /// The exit status of bad usage (an unknown option, a missing argument), as POSIX utilities use.
    static let usageExitStatus: Int32 = 2

    /// Runs the command the arguments name; bad usage prints ArgumentParser's message and exits
    /// `usageExitStatus` (ArgumentParser's own would be 64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(usageExitStatus)
        }
    }
}
