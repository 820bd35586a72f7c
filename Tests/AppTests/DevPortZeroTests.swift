import Foundation
import Glibc
import HTTPCore
import TestSupport
import Testing

/// `siwa dev --port 0 --apple-port 0` picks free ports and wires the server and the stand-in to the ports they got.
/// Found by a review: both were wired to port 0, so every sign-in was 503 and the page sent Apple to `:0`.
@Suite(.timeLimit(.minutes(2)))
struct DevPortZeroTests {
    @Test func devOnPortZeroWiresThePortsItGot() async throws {
        try await TestApp.withTemporaryDirectory { directory in
            let environment = ["LOG_LEVEL": "info", "TLS_CERT_PATH": "cert.pem", "TLS_KEY_PATH": "key.pem"]
            let dev = try SiwaProcess(["dev", "--port", "0", "--apple-port", "0"], environment: environment,
                                      directory: directory)
            let port = try await dev.waitForPort(after: "siwa on http://127.0.0.1:")
            #expect(port != 0)
            // Its log names the database, and gives mint the key file's absolute path, which works from any folder
            // (found by a black-box review: a relative one made mint a key of its own elsewhere).
            #expect(dev.output.contains("database: SQLite at siwa.sqlite"), "\(dev.output)")
            // The TLS files it does not read are named (found by a black-box review: it served plain HTTP silently).
            #expect(dev.output.contains("ignores them (siwa serve reads them): TLS_CERT_PATH, TLS_KEY_PATH"),
                    "\(dev.output)")
            let keyFile = directory.appendingPathComponent("fake-apple-key.pem").resolvingSymlinksInPath().path
            #expect(dev.output.contains("--key-file \(keyFile) gives a token"), "\(dev.output)")
            let token = try await SiwaProcess.run(["mint", "--aud", "dev.siwa.ios"], environment: [:],
                                                  directory: directory).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let client = HTTPClient()
            let body = Array(try JSONSerialization.data(withJSONObject: ["token": token]))
            let signIn = try await client.send(HTTPClientRequest(
                method: .POST, url: "http://127.0.0.1:\(port)/api/users/siwa",
                headers: ["Content-Type": "application/json"], body: body))
            #expect(signIn.status.code == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
            let page = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/login"))
            #expect(String(decoding: page.body, as: UTF8.self).contains("http://127.0.0.1:\(port)/login/siwa/callback"))
            // The stand-in takes the server's Services ID and return URL, and refuses another, as Apple does.
            let applePort = try await dev.waitForPort(after: "Apple stand-in on http://127.0.0.1:")
            func authorize(_ returnURL: String) async throws -> Int {
                let encoded = returnURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let query = "client_id=dev.siwa.web&redirect_uri=\(encoded)&response_type=code&response_mode=form_post"
                return try await client.send(HTTPClientRequest(
                    url: "http://127.0.0.1:\(applePort)/auth/authorize?" + query)).status.code
            }
            #expect(try await authorize("http://127.0.0.1:\(port)/login/siwa/callback") == 200)
            #expect(try await authorize("https://evil.example/cb") == 400)
            dev.signal(SIGTERM)
            #expect(await dev.exited(within: .seconds(30)) == 0)
        }
    }
}
