import App
import ArgumentParser
import Foundation

/// `siwa serve`: runs the server with the configuration from the environment and `.env`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default sub-command).")

    @Option(help: "Address to listen on (overrides HOSTNAME).")
    var hostname: String?

    @Option(help: "Port to listen on (overrides PORT; 0 picks a free one).")
    var port: Int?

    @OptionGroup var options: EnvFileOption

    func validate() throws {
        try PortOption.check(port, "--port")
    }

    func run() async throws {
        // `--port` takes the place of `PORT`, in the environment and in `.env` alike: a malformed `PORT` it
        // overrides is not read (found by a review: it stopped the start).
        var environment = ProcessInfo.processInfo.environment
        if let port { environment["PORT"] = String(port) }
        var configuration = try Configuration.load(dotEnvPath: options.path, environment: environment)
        if let hostname {
            configuration.hostname = hostname
            configuration.listenSettingNames.hostname = "--hostname"
        }
        if port != nil { configuration.listenSettingNames.port = "--port" }
        try await SiwaServer.runUntilSignalled(configuration: configuration)
    }
}
