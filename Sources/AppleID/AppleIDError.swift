import HTTPCore
import JOSE

/// Why an Apple JWT (identity token or server notification) was refused.
///
/// `description` (with `reason` and `detail`) is for the log and never contains the token or a
/// claim value; `clientMessage` is what a client may see, and says no more than it must: an
/// unknown `kid` and a bad signature both read "invalid identity token signature".
public struct AppleIDError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// Not a well-formed JWS/JWT, or a claim of the wrong type.
        case malformed
        /// `alg` is not RS256.
        case unsupportedAlgorithm
        /// `crit` names an extension we do not implement.
        case criticalHeader
        /// The header carries `jku`, `x5u`, `jwk` or `x5c`.
        case forbiddenHeader
        /// No Apple key has the token's `kid` (after the key cache's one refetch).
        case unknownKeyID
        /// The RS256 signature does not verify.
        case badSignature
        /// `iss` is not `https://appleid.apple.com`.
        case wrongIssuer
        /// `aud` contains none of the expected client ids.
        case wrongAudience
        /// `exp` is in the past (beyond the leeway), or missing.
        case expired
        /// `iat` is in the future (beyond the leeway), or missing.
        case issuedInFuture
        /// `iat` is older than the verifier's maximum token age (server notifications).
        case tooOld
        /// `sub` is missing or empty.
        case missingSubject
        /// The request carried a nonce and the token's `nonce` matches neither it nor its SHA-256 hex.
        case nonceMismatch
        /// Apple's keys could not be fetched and none are cached.
        case keysUnavailable
    }

    public var reason: Reason
    /// Log detail: which check failed and how; never a token, key or claim value.
    public var detail: String

    public init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    /// For key providers: no key with that `kid`.
    public static let unknownKeyID = AppleIDError(.unknownKeyID)
    /// For key providers: Apple unreachable and nothing cached.
    public static let keysUnavailable = AppleIDError(.keysUnavailable)

    /// Errors compare by reason only.
    public static func == (lhs: AppleIDError, rhs: AppleIDError) -> Bool { lhs.reason == rhs.reason }

    /// What a client may be told.
    public var clientMessage: String {
        switch reason {
        case .unknownKeyID, .badSignature: "invalid identity token signature"
        case .expired: "identity token expired"
        case .keysUnavailable: "Apple's signing keys are unavailable; try again later"
        default: "invalid identity token"
        }
    }

    /// The HTTP status for a response: 503 when Apple's keys are unreachable, 401 otherwise.
    public var status: HTTPStatus { reason == .keysUnavailable ? .serviceUnavailable : .unauthorized }

    public var description: String {
        detail.isEmpty ? "Apple JWT refused: \(reason)" : "Apple JWT refused: \(reason): \(detail)"
    }

    /// Maps a JOSE-layer refusal onto the Apple reasons.
    init(_ error: JWTError) {
        let reason: Reason = switch error.reason {
        case .malformed, .keyMismatch: .malformed
        case .unsupportedAlgorithm: .unsupportedAlgorithm
        case .criticalHeader: .criticalHeader
        case .forbiddenHeader: .forbiddenHeader
        case .unknownKeyID: .unknownKeyID
        case .badSignature: .badSignature
        }
        self.init(reason, detail: error.detail)
    }
}
