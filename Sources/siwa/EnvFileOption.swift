import App
import ArgumentParser
import Foundation

/// `--env-file`, shared by every command that reads the server's configuration, and the environment it names.
/// Without it a command reads `.env` in the working folder when there is one; a file it names must be there, so a
/// typo stops the command, before it does anything, instead of running it on defaults.
struct EnvFileOption: ParsableArguments {
    /// The file read when `--env-file` is not given, and only when it exists.
    static let defaultPath = ".env"

    @Option(help: "The .env file to read, which must exist (the environment wins); default: .env, when there is one.")
    var envFile: String?

    /// The `.env` file to read: the one `--env-file` names, else `defaultPath`.
    var path: String { envFile ?? Self.defaultPath }

    /// Refuses an `--env-file` that names no file, or one that cannot be read: one line, exit 1.
    func validate() throws {
        guard let envFile else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: envFile, isDirectory: &isDirectory) else {
            throw OperatorError("--env-file: no file at \(envFile)")
        }
        guard !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: envFile) else {
            throw OperatorError("--env-file: cannot read \(envFile)")
        }
    }

    /// The environment and configuration `siwa serve` would read.
    func load() throws -> OperatorEnvironment { try OperatorEnvironment(dotEnvPath: path) }
}
