import TestSupport
import Testing
@testable import CryptoCore

struct OpenSSLErrorTests {
    @Test func drainsTheErrorQueue() {
        #expect(throws: CryptoKeyError.self) { try RSAPrivateKey(pem: "not a key") }
        #expect(OpenSSLError.drainQueue().isEmpty)
        let error = OpenSSLError("nothing failed")
        #expect(error.errors.isEmpty)
        #expect(error.description == "OpenSSL: nothing failed failed")
    }
}
