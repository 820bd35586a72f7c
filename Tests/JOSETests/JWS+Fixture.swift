import TestSupport
import CryptoCore
@testable import JOSE
import JSON

extension JWS {
    /// A compact token with `header` JSON text and `payload` bytes, signed with the RSA fixture.
    static func fixture(header: String = #"{"alg":"RS256","kid":"k1"}"#, payload: [UInt8] = Array(#"{"sub":"a"}"#.utf8)) throws -> String {
        try JWTSigner.sign(header: Array(header.utf8), payload: payload, key: .rs256(RSAPrivateKey.fixture))
    }

    /// A token with a fake 256-byte signature: enough to test parsing and header policy.
    static func unsigned(header: String, payload: String = #"{"sub":"a"}"#, signatureBytes: Int = 256) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            + Base64URL.encode([UInt8](repeating: 7, count: signatureBytes))
    }
}
