/// Size limits applied before any decoding, so a hostile token costs little to refuse.
public struct JWSLimits: Sendable, Equatable {
    /// Longest compact serialisation accepted, in bytes (Apple's identity tokens are about 1 KiB).
    public static let defaultMaximumTokenBytes = 16 * 1024
    /// Longest decoded JOSE header accepted, in bytes.
    public static let defaultMaximumHeaderBytes = 2 * 1024
    /// Longest decoded signature accepted, in bytes (an 8192-bit RSA signature is 1024).
    public static let defaultMaximumSignatureBytes = 1024

    public var maximumTokenBytes: Int
    public var maximumHeaderBytes: Int
    public var maximumSignatureBytes: Int

    public init(
        maximumTokenBytes: Int = defaultMaximumTokenBytes,
        maximumHeaderBytes: Int = defaultMaximumHeaderBytes,
        maximumSignatureBytes: Int = defaultMaximumSignatureBytes
    ) {
        self.maximumTokenBytes = maximumTokenBytes
        self.maximumHeaderBytes = maximumHeaderBytes
        self.maximumSignatureBytes = maximumSignatureBytes
    }

    public static let `default` = JWSLimits()
}
