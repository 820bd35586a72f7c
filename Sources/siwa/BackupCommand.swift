import App
import ArgumentParser
import Dispatch
import Glibc
import HTTPCore

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
            // Read once: `DATABASE_URL` is looked at before the rest is checked.
            let environment = try OperatorEnvironment.environment(dotEnvPath: options.path)
            try BackupOperation.refusePostgres(environment)
            let loaded = try OperatorEnvironment(environment: environment)
            let interruption = Self.removeTheCopyWhenInterrupted(destination: destination)
            defer { interruption.forEach { $0.cancel() } }
            for line in try BackupOperation.run(loaded, destination: destination) {
                print(line)
            }
        }
    }

    /// On SIGINT, SIGTERM, SIGHUP (the terminal or ssh session closed; found by a review) or SIGQUIT while the copy
    /// is made, its unfinished files are removed (they hold users and sealed refresh tokens) and the command exits
    /// 128 + the signal's number, as a shell reports a signal.
    static func removeTheCopyWhenInterrupted(destination: String) -> [any DispatchSourceSignal] {
        let unfinished = BackupOperation.unfinishedFiles(destination: destination)
        return SignalHandlers.install([SIGINT, SIGTERM, SIGHUP, SIGQUIT]) { signal in
            for path in unfinished { unlink(path) }
            OperatorFailure.writeError("siwa: backup interrupted by \(SignalHandlers.name(of: signal)); nothing was kept")
            _exit(128 + signal)
        }
    }
}
