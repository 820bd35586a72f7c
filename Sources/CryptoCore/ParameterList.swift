import COpenSSL

/// An `OSSL_PARAM` array made by `OSSL_PARAM_BLD_to_param`, freed exactly once.
final class ParameterList {
    private let pointer: UnsafeMutablePointer<OSSL_PARAM>

    init(takingOwnershipOf pointer: UnsafeMutablePointer<OSSL_PARAM>) { self.pointer = pointer }

    deinit { OSSL_PARAM_free(pointer) }

    func withUnsafePointer<T>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> T) rethrows -> T {
        try body(pointer)
    }
}
