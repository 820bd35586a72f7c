import COpenSSL

/// A memory `BIO` owned by this object and freed exactly once; used for PEM in and out.
final class MemoryBIO {
    private let pointer: OpaquePointer  // BIO *
    private let source: UnsafeMutableRawBufferPointer?  // BIO_new_mem_buf does not copy; owned here

    /// A read-only BIO over a copy of `bytes`.
    init(reading bytes: [UInt8]) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        copy.copyBytes(from: bytes)
        guard let bio = BIO_new_mem_buf(copy.baseAddress, Int32(bytes.count)) else {
            copy.deallocate()
            throw OpenSSLError("BIO_new_mem_buf")
        }
        source = copy
        pointer = bio
    }

    /// An empty, growable BIO to write into.
    init() throws {
        source = nil
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
        pointer = bio
    }

    deinit {
        BIO_free(pointer)
        source?.deallocate()
    }

    func withUnsafePointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T { try body(pointer) }

    /// Everything written so far.
    var contents: [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = copenssl_bio_get_mem_data(pointer, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}
