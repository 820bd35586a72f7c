import Foundation
import OpenAPIRuntime

/// Why a call to the server failed: the status, the server's `reason` and, on 429 and 503, when to try again.
///
/// The server answers every error as `{"error": true, "reason": "<human text>"}` (README "The iOS flow"); `reason`
/// is that text, meant for a person, never a token, and is also the error's `localizedDescription`. A cancelled
/// call throws `CancellationError`, not this.
public struct SiwaError: Error, Equatable, Sendable, LocalizedError {
    /// What kind of failure this is.
    public enum Kind: Equatable, Sendable {
        /// 400: the request was malformed, or Apple refused the authorization code.
        case badRequest
        /// 401: the identity token was refused, or the bearer token is missing, unknown or ended.
        case unauthorized
        /// 413: the body is larger than the server takes.
        case contentTooLarge
        /// 415: the body was not JSON.
        case unsupportedMediaType
        /// 429: too many sign-ins from this address; see `retryAfter`.
        case tooManyRequests
        /// 503, or a proxy's 502 or 504: Apple, the database or the server cannot be reached now; see `retryAfter`.
        case serviceUnavailable
        /// A call that needs a bearer token was made before signing in (no request was sent).
        case notSignedIn
        /// A status the document does not list for the operation.
        case unexpectedStatus
        /// The request did not reach the server or no answer came back.
        case transport

        /// The kind of an answer with `status`, whatever its body.
        init(status: Int) {
            switch status {
            case 400: self = .badRequest
            case 401: self = .unauthorized
            case 413: self = .contentTooLarge
            case 415: self = .unsupportedMediaType
            case 429: self = .tooManyRequests
            case 502, 503, 504: self = .serviceUnavailable
            default: self = .unexpectedStatus
            }
        }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's `reason`, or a description of the failure when the server gave none.
    public var reason: String
    /// How long to wait before trying again (`Retry-After`, RFC 9110 §10.2.3, in seconds), on 429 and 503.
    public var retryAfter: Duration?
    /// On `.transport`, URLSession's code when it said why (`.notConnectedToInternet`, `.timedOut`,
    /// `.cannotConnectToHost`, …), so an app can tell an offline device from a server that did not answer.
    public var networkError: URLError.Code?

    /// - Parameters:
    ///   - kind: What kind of failure this is.
    ///   - status: The HTTP status, when the server answered.
    ///   - reason: The server's `reason`.
    ///   - retryAfter: `Retry-After`, when the server sent one.
    ///   - networkError: URLSession's code, on `.transport`.
    public init(kind: Kind, status: Int?, reason: String, retryAfter: Duration? = nil, networkError: URLError.Code? = nil) {
        self.kind = kind
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
        self.networkError = networkError
    }

    /// `reason`, what `localizedDescription` shows.
    public var errorDescription: String? { reason }
}

extension SiwaError {
    /// `Retry-After` as delay-seconds; an HTTP-date or anything else is ignored (the server sends seconds).
    static func retryAfter(_ header: String?) -> Duration? {
        guard let header, let seconds = Int(header.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return .seconds(seconds)
    }

    /// An error answer of a documented status.
    static func server(_ kind: Kind, _ status: Int, _ body: Components.Schemas._Error?, retryAfter: String? = nil)
        -> SiwaError
    {
        SiwaError(kind: kind, status: status, reason: body?.reason ?? "HTTP \(status)",
                  retryAfter: Self.retryAfter(retryAfter))
    }

    /// The most of an undocumented answer's body read for its `reason`.
    static let maximumErrorBodyBytes = 64 * 1024

    /// An answer the document does not describe: a status it does not list for the operation (a proxy's 502, the
    /// server's 404 for a wrong `serverURL`), or a body that is not the documented JSON (a proxy's HTML page, a
    /// website's 200). The kind and `retryAfter` come from the status and headers alone; `reason` is the server's
    /// when the body is its error JSON.
    static func answered(_ status: Int, retryAfter: String?, body: HTTPBody?) async -> SiwaError {
        let kind = Kind(status: status)
        let serversReason = status >= 400 ? await Self.reason(in: body) : nil
        let reason = serversReason ?? (
            (200..<300).contains(status) ? "The server's answer is not the documented JSON."
                : kind == .unexpectedStatus ? "The server answered an unexpected status \(status)."
                : "The server answered \(status) without the documented JSON body.")
        return SiwaError(kind: kind, status: status, reason: reason, retryAfter: Self.retryAfter(retryAfter))
    }

    /// The `reason` of the server's error JSON in `body`, if that is what it holds.
    private static func reason(in body: HTTPBody?) async -> String? {
        guard let body, let bytes = try? await Data(collecting: body, upTo: maximumErrorBodyBytes) else { return nil }
        return (try? JSONDecoder().decode(Components.Schemas._Error.self, from: bytes))?.reason
    }

    /// A call that failed before an answer: what URLSession said, in a sentence, with its code.
    static func transport(_ underlying: (any Error)?) -> SiwaError {
        let code = underlying.map { $0 as NSError }.flatMap { $0.domain == NSURLErrorDomain ? URLError.Code(rawValue: $0.code) : nil }
        let reason = switch code {
        case .notConnectedToInternet?: "The device is offline."
        case .timedOut?: "The server did not answer in time."
        case .cannotConnectToHost?: "The server refused the connection."
        case .cannotFindHost?, .dnsLookupFailed?: "The server's name could not be found."
        case .networkConnectionLost?: "The connection to the server was lost."
        case .secureConnectionFailed?, .serverCertificateUntrusted?, .serverCertificateHasBadDate?,
             .serverCertificateNotYetValid?, .serverCertificateHasUnknownRoot?:
            "A secure connection to the server could not be made."
        case let code?: "The call failed before an answer (URL error \(code.rawValue))."
        case nil: "The call failed before an answer."
        }
        return SiwaError(kind: .transport, status: nil, reason: reason, networkError: code)
    }

    static let notSignedIn = SiwaError(kind: .notSignedIn, status: nil,
                                       reason: "Sign in first: this call needs a bearer token.")
}
