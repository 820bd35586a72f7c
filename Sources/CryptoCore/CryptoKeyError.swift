/// Why key material was refused.
package struct CryptoKeyError: ReasonError, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// RSA modulus below ``RSAPublicKey/minimumModulusBits`` (NIST SP 800-131A).
        case modulusTooSmall
        /// RSA modulus above ``RSAPublicKey/maximumModulusBits`` (a denial-of-service guard).
        case modulusTooLarge
        /// RSA modulus from a known-weak generator (ROCA, CVE-2017-15361).
        case weakModulus
        /// RSA exponent even, below 3, or absurdly long.
        case invalidExponent
        /// The key is not of the expected type (RSA, EC) or curve (P-256).
        case wrongKeyType
        /// The EC point is not on P-256, or its coordinates have the wrong length.
        case invalidPoint
        /// The PEM or byte encoding could not be parsed.
        case invalidEncoding
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    package var description: String { "invalid key: \(reason)" }
}
