import App
import ArgumentParser

/// `siwa routes`: prints the route table.
struct Routes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print every route the server answers, its static files included.")

    func run() async throws {
        print(try await SiwaServer.routeTable())
    }
}
