import App
import ArgumentParser

/// `siwa migrate`: applies pending database migrations and exits.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations, then exit.")

    @OptionGroup var options: EnvFileOption

    func run() async throws {
        let configuration = try Configuration.loadForMigrations(dotEnvPath: options.path)
        let applied = try await SiwaServer.migrate(configuration)
        print(applied.isEmpty ? "Database is up to date." : "Applied migrations: \(applied.map(String.init).joined(separator: ", "))")
    }
}
