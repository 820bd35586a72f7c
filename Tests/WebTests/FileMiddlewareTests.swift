import Foundation
import HTTPCore
import Testing
@testable import Web

struct FileMiddlewareTests {
    /// A temporary public folder with a secret file beside it and a symlink pointing at the secret.
    final class Fixture {
        let base: URL
        var publicDirectory: String { base.appendingPathComponent("Public").path }

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("public-\(UUID().uuidString)")
            let pub = base.appendingPathComponent("Public")
            try FileManager.default.createDirectory(at: pub.appendingPathComponent("css"), withIntermediateDirectories: true)
            try "body{}".write(to: pub.appendingPathComponent("css/styles.css"), atomically: true, encoding: .utf8)
            try "<svg/>".write(to: pub.appendingPathComponent("logo.svg"), atomically: true, encoding: .utf8)
            try "SECRET=1".write(to: pub.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
            try "top secret".write(to: base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: pub.appendingPathComponent("escape.txt").path,
                                                       withDestinationPath: base.appendingPathComponent("secret.txt").path)
            try FileManager.default.createSymbolicLink(atPath: pub.appendingPathComponent("alias.css").path,
                                                       withDestinationPath: pub.appendingPathComponent("css/styles.css").path)
        }

        deinit { try? FileManager.default.removeItem(at: base) }

        func app(streamThreshold: Int = FileMiddleware.defaultStreamThreshold) throws -> Application {
            let app = Application.fixture()
            app.middleware.use(try FileMiddleware(publicDirectory: publicDirectory, streamThreshold: streamThreshold))
            app.get("hello") { _ in "route" }
            return app
        }
    }

    @Test func servesFilesWithContentTypesAndValidators() async throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        let css = try await app.testing.send(.GET, "/css/styles.css")
        #expect(css.status == .ok)
        #expect(css.text == "body{}")
        #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(css.headers["ETag"]?.hasPrefix("\"6-") == true)
        #expect(css.headers["Last-Modified"].flatMap(HTTPDate.parse) != nil)
        #expect(try await app.testing.send(.GET, "/logo.svg").headers["Content-Type"] == "image/svg+xml")
        #expect(try await app.testing.send(.HEAD, "/logo.svg").status == .ok)
        #expect(try await app.testing.send(.GET, "/alias.css").text == "body{}")
        #expect(try await app.testing.send(.GET, "/hello").text == "route")
        #expect(try await app.testing.send(.POST, "/logo.svg").status == .methodNotAllowed)
    }

    /// A file whose modification time no date can write (a year past `Int32.max`, which tmpfs keeps) is served with
    /// the last date that can be written. Found by a review: it ended the process.
    /// An empty file is served empty, and read without Foundation's `contents(atPath:)`, which leaks 4 KiB for
    /// every empty file it reads (LeakSanitizer, `Scripts/sanitize address`). Found by a review: `GET` of an empty
    /// `robots.txt` grew the server by 200 MB per 50,000 requests.
    @Test func anEmptyFileIsServedEmpty() async throws {
        let fixture = try Fixture()
        #expect(FileManager.default.createFile(atPath: fixture.publicDirectory + "/robots.txt", contents: Data()))
        let app = try fixture.app()
        for _ in 0..<3 {
            let response = try await app.testing.send(.GET, "/robots.txt")
            #expect(response.status == .ok)
            #expect(response.body.isEmpty)
            #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        }
        #expect(FileMiddleware.contents(of: fixture.publicDirectory + "/logo.svg", size: 6) == Array("<svg/>".utf8))
        #expect(FileMiddleware.contents(of: fixture.publicDirectory + "/logo.svg", size: 3) == Array("<sv".utf8))
        #expect(FileMiddleware.contents(of: fixture.publicDirectory + "/logo.svg", size: 9) == Array("<svg/>".utf8))
        #expect(FileMiddleware.contents(of: fixture.publicDirectory + "/missing", size: 1) == nil)
    }

    @Test func aFileFromTheFarFutureIsServed() async throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        var times = [timespec(tv_sec: 67_768_036_191_676_799, tv_nsec: 0), timespec(tv_sec: 67_768_036_191_676_799, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, fixture.publicDirectory + "/logo.svg", &times, 0) == 0)
        let response = try await app.testing.send(.GET, "/logo.svg")
        #expect(response.status == .ok)
        #expect(response.headers["Last-Modified"].flatMap(HTTPDate.parse) != nil)
    }

    @Test func conditionalRequestsGet304() async throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        let first = try await app.testing.send(.GET, "/css/styles.css")
        let etag = try #require(first.headers["ETag"])
        let lastModified = try #require(first.headers["Last-Modified"])
        let byTag = try await app.testing.send(.GET, "/css/styles.css", headers: ["If-None-Match": "\"other\", W/\(etag)"])
        #expect(byTag.status == .notModified)
        #expect(byTag.body.isEmpty)
        #expect(byTag.headers["ETag"] == etag)
        let byDate = try await app.testing.send(.GET, "/css/styles.css", headers: ["If-Modified-Since": lastModified])
        #expect(byDate.status == .notModified)
        let stale = try await app.testing.send(.GET, "/css/styles.css", headers: ["If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"])
        #expect(stale.status == .ok)
        let tagWins = try await app.testing.send(.GET, "/css/styles.css",
                                                 headers: ["If-None-Match": "\"other\"", "If-Modified-Since": lastModified])
        #expect(tagWins.status == .ok)
    }

    @Test(arguments: [
        "/../secret.txt", "/%2e%2e/secret.txt", "/css/..%2F..%2Fsecret.txt", "/css%2F..%2F..%2Fsecret.txt",
        "/.env", "/%2eenv", "/escape.txt", "/css", "/logo.svg%00.txt", "/..%5Csecret.txt", "/",
    ])
    func neverLeavesThePublicFolder(path: String) async throws {
        let fixture = try Fixture()
        let response = try await fixture.app().testing.send(.GET, path)
        #expect(response.status == .notFound || response.status == .badRequest)
        #expect(!response.text.contains("secret"))
        #expect(!response.text.contains("SECRET"))
    }

    @Test func filesAboveTheThresholdAreStreamed() async throws {
        let fixture = try Fixture()
        try "1234567".write(toFile: fixture.publicDirectory + "/seven.txt", atomically: true, encoding: .utf8)
        let app = try fixture.app(streamThreshold: 6)
        let atLimit = await app.respond(to: HTTPRequest(method: .GET, target: "/logo.svg"), connection: ApplicationTester.loopback)
        guard case .bytes(let bytes) = atLimit.body else { Issue.record("a 6-byte file at threshold 6 is streamed"); return }
        #expect(bytes == Array("<svg/>".utf8))
        let overLimit = await app.respond(to: HTTPRequest(method: .GET, target: "/seven.txt"), connection: ApplicationTester.loopback)
        guard case .stream = overLimit.body else { Issue.record("a 7-byte file at threshold 6 is not streamed"); return }
        let collected = try await app.testing.send(.GET, "/seven.txt")
        #expect(collected.text == "1234567")
        #expect(collected.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    /// Found by schemathesis (`unsupported_method`): TRACE /styles.css was 404, though the file is there.
    @Test func otherMethodsOnAFileAre405WithAllow() async throws {
        let fixture = try Fixture()
        let app = try fixture.app()
        app.post("hello") { _ in "posted" }
        for method in [HTTPMethod.POST, .DELETE, .TRACE] {
            let response = try await app.testing.send(method, "/css/styles.css")
            #expect(response.status == .methodNotAllowed, "\(method)")
            #expect(response.headers["Allow"] == "GET, HEAD, OPTIONS", "\(method)")
        }
        let options = try await app.testing.send(.OPTIONS, "/logo.svg")
        #expect(options.status == .noContent)
        #expect(options.headers["Allow"] == "GET, HEAD, OPTIONS")
        #expect(try await app.testing.send(.POST, "/missing.css").status == .notFound)
        #expect(try await app.testing.send(.POST, "/.env").status == .notFound)
        #expect(try await app.testing.send(.POST, "/escape.txt").status == .notFound)
        #expect(try await app.testing.send(.POST, "/hello").text == "posted")
    }

    @Test func missingDirectoryIsAnError() {
        #expect(throws: FileMiddlewareError.directoryNotFound("/nonexistent/public")) {
            try FileMiddleware(publicDirectory: "/nonexistent/public")
        }
    }
}
