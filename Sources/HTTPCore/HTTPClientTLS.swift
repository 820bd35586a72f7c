import CryptoCore

/// The client's TLS context, made once per `HTTPClient`; a failure (e.g. an unreadable CA file) is kept
/// and reported by every `https` request.
final class HTTPClientTLS: Sendable {
    let context: Result<TLSClientContext, TLSClientError>

    init(extraCAFile: String?) {
        context = Result { () throws(TLSClientError) in try TLSClientContext(extraCAFile: extraCAFile) }
    }
}
