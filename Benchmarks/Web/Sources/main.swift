import Foundation
import HTTPCore
import Logging
import Web

/// The framework-level peer of Benchmarks/Peers/Hummingbird: our `Web` Application with `/plaintext` and `/json`
/// (TechEmpower style), served by HTTPCore. Port from argv[1] (default 8080); `LOG_LEVEL` as the server's;
/// `COLLECT_METRICS=1` turns on the request metrics of `GET /metrics`.
struct Message: Content {
    var message: String
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8080 : 8080
var logger = Logger(label: "web-bench")
logger.logLevel = Environment.get("LOG_LEVEL").flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
let app = Application(logger: logger)
app.get("plaintext") { _ in "Hello, World!" }
app.get("json") { _ in Message(message: "Hello, World!") }
app.collectsMetrics = Environment.get("COLLECT_METRICS") == "1"
try app.boot()
// IN_PROCESS_REQUESTS=N: N requests to /json through `Application.respond`, no socket, then exit: CPU time per
// request without the event loops (valgrind 3.19 crashes on the first request of this binary, served or not).
if let count = Environment.get("IN_PROCESS_REQUESTS").flatMap(Int.init) {
    for _ in 0..<count { _ = try await app.testing.send(.GET, "/json") }
    exit(0)
}
let server = HTTPServer(configuration: .init(hostname: "127.0.0.1", port: port), responder: app, logger: logger)
let signals = server.installSignalHandlers()
try await server.run()
withExtendedLifetime(signals) {}
