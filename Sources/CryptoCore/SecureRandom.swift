import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (RAND_bytes(3)).
package enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: ``OpenSSLError`` if the generator is not seeded or fails; never returns weak bytes.
    package static func bytes(count: Int) throws -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        try check(RAND_bytes(&bytes, Int32(count)), "RAND_bytes")
        return bytes
    }
}
