import App
import ArgumentParser

/// `siwa migrate`: applies pending database migrations and exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations, then exit.")

    @Option(help: "The .env file to read (variables already in the environment win).")
    var envFile: String = ".env"

    func run() async throws {
        let configuration = try Configuration.load(dotEnvPath: envFile)
        let applied = try await SiwaServer.migrate(configuration)
        print(applied.isEmpty ? "Database is up to date." : "Applied migrations: \(applied.map(String.init).joined(separator: ", "))")
    }
}
