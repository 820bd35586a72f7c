import COpenSSL

/// An `EVP_PKEY` owned by this object and freed exactly once.
///
/// Never mutated after construction; each operation creates its own `EVP_PKEY_CTX` or
/// `EVP_MD_CTX`, so one key may be used from many threads at once (openssl-threads(7)).
final class EVPKey {
    private let pointer: OpaquePointer  // EVP_PKEY *

    /// Takes a +1 reference: `pointer` is freed when this object goes away.
    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    func withUnsafePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    /// The key size in bits (the modulus for RSA, the group order for EC).
    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Reads a big-number parameter (`"n"`, `"e"`, `"qx"`, `"qy"`) as unsigned big-endian bytes.
    func bigNumberParameter(_ name: String) throws -> [UInt8] {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else {
            throw OpenSSLError("EVP_PKEY_get_bn_param(\(name))")
        }
        defer { BN_free(bn) }
        return BigNumber.bytes(of: bn)
    }

    /// Builds a key of `algorithm` ("RSA", "EC") from provider parameters (EVP_PKEY_fromdata(3)).
    static func fromData(
        algorithm: String, selection: Int32, build: (ParameterBuilder) throws -> Void
    ) throws -> EVPKey {
        let builder = try ParameterBuilder()
        try build(builder)
        let params = try builder.build()
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw OpenSSLError("EVP_PKEY_CTX_new_from_name(\(algorithm))")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_fromdata_init(ctx), "EVP_PKEY_fromdata_init")
        var key: OpaquePointer? = nil
        try params.withUnsafePointer { p in
            try check(EVP_PKEY_fromdata(ctx, &key, selection, p), "EVP_PKEY_fromdata(\(algorithm))")
        }
        guard let key else { throw OpenSSLError("EVP_PKEY_fromdata(\(algorithm))") }
        return EVPKey(takingOwnershipOf: key)
    }

    /// Generates a fresh key with `EVP_PKEY_generate`, after `configure` sets its parameters.
    static func generate(
        algorithm: String, configure: (OpaquePointer) throws -> Void
    ) throws -> EVPKey {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw OpenSSLError("EVP_PKEY_CTX_new_from_name(\(algorithm))")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        try check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
        try configure(ctx)
        var key: OpaquePointer? = nil
        try check(EVP_PKEY_generate(ctx, &key), "EVP_PKEY_generate(\(algorithm))")
        guard let key else { throw OpenSSLError("EVP_PKEY_generate(\(algorithm))") }
        return EVPKey(takingOwnershipOf: key)
    }
}

extension EVPKey: @unchecked Sendable {}  // never mutated; each use makes its own EVP_PKEY_CTX (openssl-threads(7))
