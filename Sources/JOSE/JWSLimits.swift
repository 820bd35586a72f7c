/// Size limits applied before any decoding, so a hostile token costs little to refuse.
package struct JWSLimits: Sendable, Equatable {
    /// Longest compact serialisation accepted, in bytes (Apple's identity tokens are about 1 KiB).
    package static let defaultMaximumTokenBytes = 16 * 1024
    /// Longest decoded JOSE header accepted, in bytes.
    package static let defaultMaximumHeaderBytes = 2 * 1024
    /// Longest decoded signature accepted, in bytes (an 8192-bit RSA signature is 1024).
    package static let defaultMaximumSignatureBytes = 1024

    package var maximumTokenBytes: Int
    package var maximumHeaderBytes: Int
    package var maximumSignatureBytes: Int

    package init(
        maximumTokenBytes: Int = defaultMaximumTokenBytes,
        maximumHeaderBytes: Int = defaultMaximumHeaderBytes,
        maximumSignatureBytes: Int = defaultMaximumSignatureBytes
    ) {
        self.maximumTokenBytes = maximumTokenBytes
        self.maximumHeaderBytes = maximumHeaderBytes
        self.maximumSignatureBytes = maximumSignatureBytes
    }

    package static let `default` = JWSLimits()
}
