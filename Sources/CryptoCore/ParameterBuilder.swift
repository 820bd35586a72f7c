import COpenSSL

/// An `OSSL_PARAM_BLD` owned by this object.
///
/// OSSL_PARAM_BLD(3) keeps *pointers* to the names, strings, octets and BIGNUMs pushed into it
/// until ``build()`` copies them, so names and string values are `StaticString`s (immortal)
/// and octets and numbers are kept alive here.
final class ParameterBuilder {
    private let pointer: OpaquePointer  // OSSL_PARAM_BLD *
    private var numbers: [BigNumber] = []
    private var buffers: [UnsafeMutableRawBufferPointer] = []

    init() throws {
        guard let bld = OSSL_PARAM_BLD_new() else { throw OpenSSLError("OSSL_PARAM_BLD_new") }
        pointer = bld
    }

    deinit {
        OSSL_PARAM_BLD_free(pointer)
        buffers.forEach { $0.deallocate() }
    }

    func push(_ name: StaticString, unsignedBigEndian bytes: [UInt8]) throws {
        let bn = try BigNumber(bytes: bytes)
        numbers.append(bn)
        try bn.withUnsafePointer { try check(OSSL_PARAM_BLD_push_BN(pointer, cString(name), $0), "OSSL_PARAM_BLD_push_BN(\(name))") }
    }

    func push(_ name: StaticString, utf8String value: StaticString) throws {
        try check(
            OSSL_PARAM_BLD_push_utf8_string(pointer, cString(name), cString(value), value.utf8CodeUnitCount),
            "OSSL_PARAM_BLD_push_utf8_string(\(name))")
    }

    func push(_ name: StaticString, octets: [UInt8]) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(octets.count, 1), alignment: 1)
        buffers.append(buffer)
        buffer.copyBytes(from: octets)
        try check(
            OSSL_PARAM_BLD_push_octet_string(pointer, cString(name), buffer.baseAddress, octets.count),
            "OSSL_PARAM_BLD_push_octet_string(\(name))")
    }

    func build() throws -> ParameterList {
        guard let params = OSSL_PARAM_BLD_to_param(pointer) else { throw OpenSSLError("OSSL_PARAM_BLD_to_param") }
        return ParameterList(takingOwnershipOf: params)
    }

    private func cString(_ string: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(string.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
