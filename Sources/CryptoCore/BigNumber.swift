import COpenSSL

/// A `BIGNUM` owned by this object and freed exactly once.
final class BigNumber {
    private let pointer: OpaquePointer  // BIGNUM *

    /// Parses unsigned big-endian `bytes` (leading zeros allowed).
    init(bytes: [UInt8]) throws {
        guard let bn = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            throw OpenSSLError("BN_bin2bn")
        }
        pointer = bn
    }

    deinit { BN_free(pointer) }

    func withUnsafePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    /// The minimal unsigned big-endian encoding of `bn` (empty for zero).
    static func bytes(of bn: OpaquePointer) -> [UInt8] {
        let count = Int((BN_num_bits(bn) + 7) / 8)
        var out = [UInt8](repeating: 0, count: count)
        if count > 0 { _ = BN_bn2bin(bn, &out) }
        return out
    }
}
