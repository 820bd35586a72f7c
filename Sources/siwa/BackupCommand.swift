import App
import ArgumentParser

/// `siwa backup DEST`: an online, checked copy of the SQLite database (never the refresh-token key).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database to DEST while the server runs, checked with PRAGMA integrity_check."
    )

    @Argument(help: "The new file to write; an existing file is never overwritten.")
    var destination: String

    @OptionGroup var options: EnvFileOption

    func run() async throws {
        try OperatorFailure.report {
            for line in try BackupOperation.run(options.load(), destination: destination) {
                print(line)
            }
        }
    }
}
