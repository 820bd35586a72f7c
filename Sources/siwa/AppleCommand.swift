import App
import ArgumentParser

/// `siwa apple`: Apple token chores for operators.
struct AppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Apple token lifecycle chores (need APPLE_TEAM_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH; SIWA_ENCRYPTION_KEY or the key file the server made).",
        subcommands: [ValidateTokens.self, RetryRevocations.self]
    )

    struct ValidateTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate-tokens",
            abstract: "Check every stored refresh token with Apple and mark revoked ones (run daily)."
        )
        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await OperatorFailure.report {
                print(try await AppleTokenLifecycle.validateTokens(configuration: options.load().configuration))
            }
        }
    }

    struct RetryRevocations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry-revocations",
            abstract: "Retry Apple token revocations that failed when their account was deleted."
        )
        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await OperatorFailure.report {
                print(try await AppleTokenLifecycle.retryRevocations(configuration: options.load().configuration))
            }
        }
    }
}
