import TestSupport
import Foundation

/// The parts of Wycheproof's signature-verification files these tests read
/// (schemas `rsassa_pkcs1_verify_schema_v1.json`, `ecdsa_verify_schema_v1.json`, `ecdsa_p1363_verify_schema_v1.json`).
enum Wycheproof {
    struct File: Decodable {
        var algorithm: String
        var numberOfTests: Int
        var testGroups: [Group]
    }

    struct Group: Decodable {
        var publicKey: PublicKey
        var tests: [Case]
    }

    struct PublicKey: Decodable {
        var modulus: String?
        var publicExponent: String?
        var wx: String?
        var wy: String?
        var curve: String?
    }

    struct Case: Decodable {
        var tcId: Int
        var comment: String
        var flags: [String]
        var msg: String
        var sig: String
        var result: String
    }

    static func file(_ name: String) throws -> File? {
        guard let data = TestVectors.load("wycheproof/" + name) else { return nil }
        return try JSONDecoder().decode(File.self, from: data)
    }

    /// A P-256 coordinate from Wycheproof's signed hex (may carry a 00 sign byte) as 32 bytes.
    static func coordinate(_ hex: String) -> [UInt8] {
        let bytes = [UInt8](hex: hex).drop(while: { $0 == 0 })
        return [UInt8](repeating: 0, count: max(0, 32 - bytes.count)) + bytes
    }
}
