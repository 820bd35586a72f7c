import App
import ArgumentParser

/// `siwa doctor`: checks the configuration the server would start with; exits 1 when a configured route would fail.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the configuration, the .p8, Apple's keys, the database, and that Apple accepts the client secret."
    )

    @OptionGroup var options: EnvFileOption

    func run() async throws {
        let passed = await Doctor.run(dotEnvPath: options.path) { finding in print(finding) }
        if !passed { throw ExitCode.failure }
    }
}
