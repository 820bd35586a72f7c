import Glibc
import HTTPCore
import Logging

/// `/plaintext` -> "Hello, World!", `/json` -> {"message":"Hello, World!"} (encoded per request); port from argv[1] (default 8080).
/// `ACCESS_LOG=1` turns the per-request access log on (to stderr).
struct BenchResponder: HTTPResponder {
    static let plaintext = Array("Hello, World!".utf8)
    static let message = "Hello, World!"

    func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        switch request.path {
        case "/plaintext": HTTPResponse(headers: ["Content-Type": "text/plain"], bytes: Self.plaintext)
        case "/json": HTTPResponse(headers: ["Content-Type": "application/json"], string: Self.encode(Self.message))
        default: HTTPResponse(status: .notFound)
        }
    }
}

extension BenchResponder {
    /// `{"message":"..."}`, built per request (the string is ASCII without quotes or backslashes).
    static func encode(_ message: String) -> String { "{\"message\":\"\(message)\"}" }
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8080 : 8080
var logger = Logger(label: "bench")
let accessLog = getenv("ACCESS_LOG").map { String(cString: $0) == "1" } ?? false
logger.logLevel = accessLog ? .info : .notice
let server = HTTPServer(configuration: .init(port: port), responder: BenchResponder(), logger: logger)
let signals = server.installSignalHandlers()
try await server.run()
