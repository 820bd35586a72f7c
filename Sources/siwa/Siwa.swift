import ArgumentParser
import FakeApple
import Foundation
import HTTPCore

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

    /// Runs the command the arguments name; bad usage prints one line, ArgumentParser's error and where to find
    /// the usage, and exits `usageExitStatus` (ArgumentParser's own would be 64).
    static func main() async {
        if let unknown = unknownCommand(in: Array(CommandLine.arguments.dropFirst())) {
            OperatorFailure.writeError(unknown)
            Foundation.exit(usageExitStatus)
        }
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                OperatorFailure.writeError(oneLine(fullMessage(for: error)))
                Foundation.exit(usageExitStatus)
            }
            guard code == .failure, !(error is ExitCode) else { exit(withError: error) }
            OperatorFailure.writeError("Error: " + failureLine(message(for: error)))
            Foundation.exit(EXIT_FAILURE)
        }
    }

    /// The usage error for a first argument that names no command, or nil. `serve` is the default command and takes
    /// no argument, so a first word that is not an option can only be a command: found by a review, `siwa migrat`
    /// said "Unexpected argument 'migrat'. See 'siwa serve --help'".
    static func unknownCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(first), first != "help" else { return nil }
        return "Error: '\(LogEscaping.escape(first))' is not a siwa command (\(names.joined(separator: ", "))). "
            + "See 'siwa --help' for more information."
    }

    /// A command's failure as one line: the lines of `message` (an SQL statement an error quotes) joined by spaces,
    /// and any control character left written out, so input echoed in it cannot end the line or reach the terminal.
    static func failureLine(_ message: String) -> String {
        LogEscaping.escape(message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " "))
    }

    /// The first line of ArgumentParser's usage message (`Error: …`) and its pointer to the command's help, in one
    /// line: "Every command exits non-zero with one clear line on bad input".
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first else { return message }
        guard let help = lines.dropFirst().last(where: { $0.hasPrefix("See '") }) else { return first }
        return first + (first.hasSuffix(".") ? " " : ". ") + help
    }
}

/// A command that only groups others fails, as bad usage, when none is named.
protocol CommandGroupCommand: AsyncParsableCommand {}

extension CommandGroupCommand {
    func run() async throws {
        let names = Self.configuration.subcommands.map { $0._commandName }.joined(separator: ", ")
        throw ValidationError("'\(Self._commandName)' needs one of its commands: \(names)")
    }
}
