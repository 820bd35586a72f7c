import COpenSSL
import Glibc

/// A blocking OpenSSL server context for `ScriptedServer`, from PEM certificate-chain and key files.
final class ScriptedTLSServerContext: @unchecked Sendable {  // configured once in init; SSL_new is thread-safe
    private let context: OpaquePointer

    init(certificateChainFile: String, keyFile: String) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw ScriptedServerError("SSL_CTX_new") }
        self.context = context
        guard SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1,
              SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw ScriptedServerError("cannot load \(certificateChainFile) / \(keyFile)")
        }
    }

    deinit { SSL_CTX_free(context) }

    /// Runs the server handshake on a blocking socket; nil when the client gave up (e.g. refused the cert).
    func accept(fd: Int32) -> ScriptedTLSStream? {
        guard let ssl = SSL_new(context) else { return nil }
        let stream = ScriptedTLSStream(ssl: ssl)
        guard SSL_set_fd(ssl, fd) == 1, SSL_accept(ssl) == 1 else {
            ERR_clear_error()
            return nil
        }
        return stream
    }
}

/// One server-side TLS session; owns its `SSL`.
final class ScriptedTLSStream: ScriptedServerStream {
    private let ssl: OpaquePointer

    init(ssl: OpaquePointer) { self.ssl = ssl }

    deinit { SSL_free(ssl) }

    func read() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var count = 0
        let ok = buffer.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
        if ok != 1 { ERR_clear_error() }
        return ok == 1 ? Array(buffer[0..<count]) : []
    }

    func write(_ bytes: [UInt8]) {
        var count = 0
        if bytes.withUnsafeBytes({ SSL_write_ex(ssl, $0.baseAddress, $0.count, &count) }) != 1 { ERR_clear_error() }
    }

    func finish() { _ = SSL_shutdown(ssl) }
}
