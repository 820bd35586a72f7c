import App
import ArgumentParser

/// `siwa apple`: Apple token chores for operators. Each prints a live line on a terminal and one summary line, and
/// exits 0 when everything due was done, 1 when some is left (the summary says why), 2 for bad usage.
struct AppleCommand: CommandGroupCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Apple token lifecycle chores (need APPLE_TEAM_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH; SIWA_ENCRYPTION_KEY or the key file the server made).",
        subcommands: [ValidateTokens.self, RetryRevocations.self, AppleTransferCommand.self]
    )

    struct ValidateTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate-tokens",
            abstract: "Check stored refresh tokens with Apple (each at most once a day) and mark revoked ones."
        )
        @OptionGroup var options: EnvFileOption

        func run() async throws { try await AppleCommand.run(.validateTokens, options) }
    }

    struct RetryRevocations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry-revocations",
            abstract: "Retry Apple token revocations that failed when their account was deleted."
        )
        @OptionGroup var options: EnvFileOption

        func run() async throws { try await AppleCommand.run(.retryRevocations, options) }
    }

    /// Runs `chore`, prints its summary, and exits with its status.
    static func run(_ chore: AppleChoreKind, _ options: EnvFileOption) async throws {
        try await OperatorFailure.report {
            let report = try await AppleTokenLifecycle.runChore(chore, environment: options.load())
            print(report)
            if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
        }
    }
}
