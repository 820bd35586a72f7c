import Hummingbird

/// `/plaintext` and `/json` as in the TechEmpower tests; port from argv[1] (default 8081).
struct Message: ResponseEncodable {
    let message: String
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8081 : 8081
let router = Router()
router.get("plaintext") { _, _ in "Hello, World!" }
router.get("json") { _, _ in Message(message: "Hello, World!") }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
