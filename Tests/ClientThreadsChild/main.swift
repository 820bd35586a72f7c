// Helper for HTTPCoreTests' thread check: in a process of its own, so that no other suite's threads are counted.
// Serves a slow answer on loopback, sends COUNT exchanges to it at once through one pooled client, and prints the
// thread count before and at the peak while they wait, then the connections opened.
// Usage: ClientThreadsChild <count>
import Foundation
import HTTPCore
import Logging

struct SlowAnswer: HTTPResponder {
    func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        if request.path == "/slow" { try? await Task.sleep(for: .milliseconds(800)) }
        return HTTPResponse(string: "ok")
    }
}

func threadCount() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return 0 }
    return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
}

guard CommandLine.arguments.count == 2, let count = Int(CommandLine.arguments[1]), count > 0 else {
    FileHandle.standardError.write(Data("usage: ClientThreadsChild <count>\n".utf8))
    exit(64)
}
var logger = Logger(label: "child")
logger.logLevel = .warning
let server = HTTPServer(configuration: .init(port: 0, loopCount: 1), responder: SlowAnswer(), logger: logger)
try server.start()
let url = "http://127.0.0.1:\(server.localPort)"
let client = HTTPClient(configuration: .init(maxConnectionsPerOrigin: count))
_ = try await client.send(HTTPClientRequest(url: url + "/"))
try await Task.sleep(for: .milliseconds(100))
let before = threadCount()
let peak = try await withThrowingTaskGroup(of: Int.self) { group in
    for _ in 0..<count {
        group.addTask {
            _ = try await client.send(HTTPClientRequest(url: url + "/slow"))
            return 0
        }
    }
    group.addTask {
        var peak = 0
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(50))
            peak = max(peak, threadCount())
        }
        return peak
    }
    var peak = 0
    for try await value in group { peak = max(peak, value) }
    return peak
}
print("\(before) \(peak) \(client.statistics.opened)")
await server.shutdown()
