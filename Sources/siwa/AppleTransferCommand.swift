import App
import ArgumentParser

/// `siwa apple transfer`: moving the app and its users to another Apple team (README "Moving the app to another
/// team"). Export and import print one summary line (and what else they did), and exit 0 when every user was done,
/// 1 when some are left or a line named no user, 2 for bad usage.
struct AppleTransferCommand: CommandGroupCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Move Sign in with Apple users to another team (TN3159): export, import, status.",
        subcommands: [Export.self, Import.self, Status.self]
    )

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sending team: get a transfer identifier for every user, for the receiving team --to.",
            discussion: "Run with the sending team's APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH. "
                + "Resumable: users holding an identifier for that team are not asked for again."
        )
        @Option(help: "The receiving team's id: 10 capital letters or digits.")
        var to: String

        @Option(help: "Write JSON Lines {\"user_id\", \"transfer_sub\"} here once every user has one (no sub, no e-mail).")
        var out: String?

        @Flag(help: "With --out: write the file even when Apple refused some users an identifier, leaving them out.")
        var allowMissing = false

        @OptionGroup var options: EnvFileOption

        func validate() throws {
            guard AppleTransfer.isTeamID(to) else {
                throw ValidationError("--to must be the receiving team's id: 10 capital letters or digits")
            }
            guard !allowMissing || out != nil else { throw ValidationError("--allow-missing goes with --out FILE") }
        }

        func run() async throws {
            try await AppleTransferCommand.report {
                try await AppleTransfer.export(to: to, out: out, allowMissing: allowMissing,
                                               environment: try options.load())
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Receiving team: exchange transfer identifiers for this team's sub and e-mail, in place.",
            discussion: "Run with the receiving team's APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH. "
                + "Without FILE: the identifiers stored in this database (carried over from the sender). With FILE: "
                + "the sender's export, matched by user_id (a restored copy of the sender's database)."
        )
        @Argument(help: "The sending team's export (JSON Lines).")
        var file: String?

        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await AppleTransferCommand.report {
                try await AppleTransfer.importIdentifiers(from: file, environment: try options.load())
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Users, exported, migrated, still to migrate, and days left of the 60-day window."
        )
        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await OperatorFailure.report {
                print(try await AppleTransfer.status(environment: try options.load()))
            }
        }
    }

    /// Prints what `body` reports and exits with its status; an `OperatorError` is one line and exit 1.
    static func report(_ body: () async throws -> ChoreReport) async throws {
        try await OperatorFailure.report {
            let report = try await body()
            print(report)
            if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
        }
    }
}
