import Foundation
import HTTPCore
import Storage
import TestSupport
@testable import App

/// Several instances of the server, in process, as a load balancer would see them: one PostgreSQL database of
/// their own, the same secrets (Apple key, `SIWA_ENCRYPTION_KEY`) and the same Apple.
extension TestApp {
    /// Starts `count` servers on a new database in the shared PostgreSQL cluster, runs `body` with them, and
    /// stops them all whether it returns or throws.
    ///
    /// They share one folder, so each loads the same stand-in key, `.p8` and encryption key, and all of them talk
    /// to the first one's stand-in (an authorization code it issued can be exchanged by any instance). Each keeps
    /// its own caches and rate limiter, as separate processes would. `configure` may then change instance `n`'s
    /// configuration.
    static func instances<T>(_ count: Int, configure: (Int, inout Configuration) -> Void = { _, _ in },
                             _ body: ([TestApp]) async throws -> T) async throws -> T {
        let directory = temporaryDirectory()
        let url = try PostgresURL(try await PostgresCluster.sharedCluster().newDatabase())
        var apps: [TestApp] = []
        func stopAll() async {
            for app in apps { await app.stop(keepFiles: true) }
            try? FileManager.default.removeItem(at: directory)
        }
        do {
            for index in 0..<count {
                let apple = apps.first?.apple.baseURL
                apps.append(try await start(directory: directory, configure: { configuration in
                    configuration.databaseURL = url
                    if let apple { configuration.appleBaseURL = apple }
                    configure(index, &configuration)
                }))
            }
            let result = try await body(apps)
            await stopAll()
            return result
        } catch {
            await stopAll()
            throw error
        }
    }

    /// The signed-in user's home page as the browser holding `session` sees it.
    func home(session: String) async throws -> HTTPClientResponse {
        try await send(.GET, "/", headers: ["Cookie": "session=\(session)"])
    }
}
