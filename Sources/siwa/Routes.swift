import App
import ArgumentParser

/// `siwa routes`: prints the route table.
struct Routes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print every route the server answers, its static files included.")

    @OptionGroup var options: EnvFileOption

    /// The static files listed are those `siwa serve` serves: from `RESOURCES_PATH` (environment or `.env`) when set.
    func run() async throws {
        print(try await SiwaServer.routeTable(resourcesPath: Configuration.resourcesPath(dotEnvPath: options.path)))
    }
}
