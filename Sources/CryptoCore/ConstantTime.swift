import COpenSSL

/// Compares two byte strings in time that depends only on their lengths (CRYPTO_memcmp(3)).
///
/// Different lengths return `false` at once: lengths are not secret here (tokens, digests
/// and nonces have public sizes), contents are.
package func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.isEmpty { return true }
    return lhs.withUnsafeBytes { a in
        rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
    }
}

/// Compares the UTF-8 bytes of two strings in constant time; see ``constantTimeEquals(_:_:)-(([UInt8],[UInt8]))``.
package func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    var (lhs, rhs) = (lhs, rhs)
    return lhs.withUTF8 { a in rhs.withUTF8 { b in constantTimeEquals(a, b) } }
}

/// Compares two byte buffers in constant time; see ``constantTimeEquals(_:_:)-(([UInt8],[UInt8]))``.
package func constantTimeEquals(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.isEmpty { return true }
    return CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, lhs.count) == 0
}
