import CryptoCore
import Synchronization

/// The client's TLS context, made on the first `https` request of an `HTTPClient` (loading the system trust store
/// costs tens of milliseconds, which start-up should not pay) and then shared; a failure (e.g. an unreadable CA
/// file) is kept and reported by every `https` request.
final class HTTPClientTLS: Sendable {
    private let trustStoreFile: String?
    private let extraCAFile: String?
    private let made = Mutex<Result<TLSClientContext, TLSClientError>?>(nil)

    init(trustStoreFile: String?, extraCAFile: String?) {
        self.trustStoreFile = trustStoreFile
        self.extraCAFile = extraCAFile
    }

    var context: Result<TLSClientContext, TLSClientError> {
        made.withLock { made in
            if let made { return made }
            let result = Result { () throws(TLSClientError) in 
                try TLSClientContext(trustStoreFile: trustStoreFile, extraCAFile: extraCAFile)
            }
            made = result
            return result
        }
    }
}
