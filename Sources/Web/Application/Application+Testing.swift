import Foundation
import HTTPCore

extension Application {
    /// Sends requests through the same `respond(to:connection:)` the server calls, without a socket.
    package var testing: ApplicationTester { ApplicationTester(application: self) }
}

/// In-process requests for tests: `try await app.testing.send(.GET, "/health")`.
package struct ApplicationTester: Sendable {
    let application: Application

    /// A plain-HTTP loopback peer.
    package static let loopback = ConnectionInfo(remoteAddress: "127.0.0.1:50000", isSecure: false)

    /// Sends a request; a streamed body is collected.
    package func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
                     connection: ConnectionInfo = loopback) async throws -> TestResponse {
        var headers = headers
        if !headers.contains("Host") { headers.add(name: "Host", value: "localhost") }
        let request = HTTPRequest(method: method, target: target, headers: headers, body: body)
        let response = await application.respond(to: request, connection: connection)
        let bytes: [UInt8]
        switch response.body {
        case .bytes(let data): bytes = data
        case .stream(let produce):
            let collector = BodyCollector()
            try await produce(collector)
            bytes = await collector.bytes
        }
        return TestResponse(status: response.status, headers: response.headers, body: bytes)
    }

    /// Sends `value` as a JSON body.
    package func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], json value: some Encodable,
                     connection: ConnectionInfo = loopback) async throws -> TestResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return try await send(method, target, headers: headers, body: Array(try JSONEncoder().encode(value)),
                              connection: connection)
    }

    /// Sends `fields` as an `application/x-www-form-urlencoded` body.
    package func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:],
                     form fields: [(String, String)], connection: ConnectionInfo = loopback) async throws -> TestResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = fields.map { PercentDecoding.encode($0.0) + "=" + PercentDecoding.encode($0.1) }.joined(separator: "&")
        return try await send(method, target, headers: headers, body: Array(body.utf8), connection: connection)
    }
}

/// A response collected in a test.
package struct TestResponse: Sendable {
    package let status: HTTPStatus
    package let headers: HTTPHeaders
    package let body: [UInt8]

    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// Decodes the body as JSON.
    package func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONCoding.decoder().decode(T.self, from: Data(body))
    }

    /// The `Set-Cookie` field values, in order.
    package var setCookies: [String] { headers.values(for: "Set-Cookie") }

    /// Name to value of each cookie set, as a client would send them back.
    package var cookies: [String: String] {
        var result: [String: String] = [:]
        for line in setCookies {
            let pair = line.split(separator: ";", maxSplits: 1).first ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return result
    }
}

/// Collects a streamed body.
actor BodyCollector: HTTPBodyWriter {
    private(set) var bytes: [UInt8] = []
    func write(_ chunk: [UInt8]) { bytes += chunk }
}
