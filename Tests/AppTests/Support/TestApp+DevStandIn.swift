import AppleID
@testable import FakeApple
import Foundation

extension TestApp {
    /// `body` with a stand-in of its own, in a new folder, and the development secrets it checks client secrets
    /// against; both are stopped and removed after.
    static func withDevStandIn<T>(_ body: (FakeAppleServer, DevSecrets) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-stand-in-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("apple.pem").path
        let secrets = try DevSecrets.loadOrCreate(besides: keyFile)
        let standIn = try FakeAppleServer(hostname: "127.0.0.1", port: 0, keys: try FakeAppleKeys.loadOrCreate(path: keyFile),
                                          clientSecretKey: try secrets.clientKey.publicKey,
                                          logger: TestApp.quietLogger("fake-apple"))
        try standIn.start()
        do {
            let result = try await body(standIn, secrets)
            await standIn.shutdown()
            return result
        } catch {
            await standIn.shutdown()
            throw error
        }
    }
}
