import COpenSSL

/// Conversions between the JWS form of a P-256 ECDSA signature (raw `r || s`, 32 bytes each,
/// RFC 7518 §3.4) and the DER `ECDSA-Sig-Value` OpenSSL works with (RFC 3279 §2.2.3).
enum ECDSASignature {
    static let scalarSize = 32

    /// The order n of the P-256 group (SEC 2 §2.4.2).
    static let groupOrder: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]

    /// Whether the 32-byte big-endian `scalar` lies in [1, n - 1] (FIPS 186-5 §6.4.2 step 1).
    static func isInRange(_ scalar: ArraySlice<UInt8>) -> Bool {
        guard scalar.count == scalarSize, scalar.contains(where: { $0 != 0 }) else { return false }
        for (a, b) in zip(scalar, groupOrder) where a != b { return a < b }
        return false
    }

    /// DER for a raw 64-byte `r || s`, or nil when the length is wrong or r or s is out of range.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarSize else { return nil }
        let r = raw[0..<scalarSize], s = raw[scalarSize...]
        guard isInRange(r), isInRange(s) else { return nil }
        return sequence(integer(r), integer(s))
    }

    /// The raw 64-byte `r || s` for a strict-DER signature, or nil when it is not exactly one DER
    /// SEQUENCE of two positive minimal INTEGERs below n.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard let sig = der.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }) else {
            OpenSSLError.drainQueue()
            return nil
        }
        defer { ECDSA_SIG_free(sig) }
        var reencoded: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(sig, &reencoded)
        guard length > 0, let reencoded else { return nil }
        defer { copenssl_free(reencoded) }
        guard Array(UnsafeBufferPointer(start: reencoded, count: Int(length))) == der else { return nil }
        guard let r = ECDSA_SIG_get0_r(sig), let s = ECDSA_SIG_get0_s(sig),
              BN_is_negative(r) == 0, BN_is_negative(s) == 0
        else { return nil }
        let rBytes = BigNumber.bytes(of: r), sBytes = BigNumber.bytes(of: s)
        guard rBytes.count <= scalarSize, sBytes.count <= scalarSize else { return nil }
        let raw = padded(rBytes) + padded(sBytes)
        guard isInRange(raw[0..<scalarSize]), isInRange(raw[scalarSize...]) else { return nil }
        return raw
    }

    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](repeating: 0, count: scalarSize - bytes.count) + bytes
    }

    /// A DER INTEGER for an unsigned big-endian value (X.690 §8.3: minimal, positive).
    private static func integer(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var body = Array(value.drop(while: { $0 == 0 }))
        if body.isEmpty || body[0] & 0x80 != 0 { body.insert(0, at: 0) }
        return [0x02, UInt8(body.count)] + body
    }

    private static func sequence(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        [0x30, UInt8(first.count + second.count)] + first + second
    }
}
