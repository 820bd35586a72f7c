import App
import ArgumentParser

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
        var configuration = try Configuration.load(dotEnvPath: options.path)
        if let hostname {
            configuration.hostname = hostname
            configuration.listenSettingNames.hostname = "--hostname"
        }
        if let port {
            configuration.port = port
            configuration.listenSettingNames.port = "--port"
        }
        try await SiwaServer.runUntilSignalled(configuration: configuration)
    }
}
