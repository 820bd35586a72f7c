import CryptoCore
@testable import FakeApple
import Foundation
import TestSupport
import Testing
import Web
@testable import App

/// A key's text given where its path belongs (hosting guides pass keys by value) is never repeated by the start-up
/// checks, whose errors go to the log. Found by a review: both quoted the whole key.
struct KeyTextNotEchoedTests {
    static let pem = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgk1SzE7hman/+2pTv
        N/J+Ks33sWyIOsp48q4EwTd2OSuhRANCAATibazoKQelpChQcADniRsoIVn//qej
        JWfN0V8AG4r296sS78LWZgLxmah1IQwrztSAaxArO1RXMD2nTTrscf90
        -----END PRIVATE KEY-----
        """
    static let keyLine = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgk1SzE7hman/+2pTv"

    @Test(arguments: [pem, keyLine])
    func theAppleKeyCheckNamesTheVariableButNotTheKey(_ value: String) throws {
        let configuration = try Configuration(Environment([
            "APPLE_TEAM_ID": "ABCDE12345", "APPLE_KEY_ID": "XYZ987WVU6", "APPLE_PRIVATE_KEY_PATH": value,
        ]))
        let error = #expect(throws: ConfigurationError.self) { try AppleKeyFileCheck.check(configuration) }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("APPLE_PRIVATE_KEY_PATH"))
        #expect(text.contains(ConfiguredPath.withheld))
        #expect(!text.contains("MIGHAgEAMBMG"), "\(text)")
    }

    @Test func theTLSCheckNamesTheVariableButNotTheKey() throws {
        let certificate = try SelfSignedCertificate.make()
        let key = try String(contentsOfFile: certificate.privateKeyPath, encoding: .utf8)
        let keyLine = String(key.split(separator: "\n")[1])
        let configuration = try Configuration(Environment([
            "TLS_CERT_PATH": certificate.certificatePath, "TLS_KEY_PATH": key,
        ]))
        #expect {
            try TLSFilesCheck.check(configuration)
        } throws: { error in
            "\(error)".contains("TLS_KEY_PATH") && !"\(error)".contains(keyLine)
        }
    }

    /// The stand-in's keys are created with mode 0600 (never wider, not even before a `chmod`), and a link planted
    /// where one belongs is not written through.
    @Test func theStandInsKeysAreCreatedPrivateAndNoLinkIsFollowed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("fake-apple-key.pem").path
        let keys = try FakeAppleKeys.loadOrCreate(path: keyFile)
        let secrets = try DevSecrets.loadOrCreate(besides: keyFile)
        for path in [keyFile, secrets.clientKeyPath] {
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        }
        #expect(try FakeAppleKeys.loadOrCreate(path: keyFile).keyID == keys.keyID)

        let planted = directory.appendingPathComponent("planted.pem").path
        let target = directory.appendingPathComponent("elsewhere.pem").path
        #expect(symlink(target, planted) == 0)
        #expect(throws: (any Error).self) { try FakeAppleKeys.loadOrCreate(path: planted) }
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
