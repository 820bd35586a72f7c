import CryptoCore
import JOSE
import JSON

/// Why an Apple JWT (identity token or server notification) was refused.
///
/// `description` (with `reason` and `detail`) is for the log and never contains the token or a
/// claim value; `clientMessage` is what a client may see, and says no more than it must: an
/// unknown `kid` and a bad signature both read "invalid identity token signature".
package struct AppleIDError: ReasonError, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// Refused by the JOSE layer (`JWTError`): not a well-formed JWS, an algorithm other than RS256, a `crit`
        /// extension, a key reference (`jku`, `x5u`, `jwk`, `x5c`), no Apple key with the token's `kid` (after the
        /// key cache's one refetch), or a signature that does not verify. A claim of the wrong type is `malformed`.
        case token(JWTError.Reason)
        /// `iss` is not `https://appleid.apple.com`.
        case wrongIssuer
        /// `aud` contains none of the expected client ids.
        case wrongAudience
        /// `exp` is in the past (beyond the leeway), or missing.
        case expired
        /// `iat` (or `nbf`, when present) is in the future (beyond the leeway).
        case issuedInFuture
        /// `iat` is older than the verifier's maximum token age (server notifications).
        case tooOld
        /// `sub` is missing or empty.
        case missingSubject
        /// The request carried a nonce and the token's `nonce` matches neither it nor its SHA-256 hex.
        case nonceMismatch
        /// The token carries a `nonce` and the request none: the sign-in was bound to a nonce the client left out.
        case nonceMissing
        /// Apple's keys could not be fetched and none are cached.
        case keysUnavailable
    }

    package var reason: Reason
    /// Log detail: which check failed and how; never a token, key or claim value.
    package var detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    /// For key providers: no key with that `kid`.
    package static let unknownKeyID = AppleIDError(.unknownKeyID)
    /// For key providers: Apple unreachable and nothing cached.
    package static let keysUnavailable = AppleIDError(.keysUnavailable)

    /// What a client may be told.
    package var clientMessage: String {
        switch reason {
        case .token(.unknownKeyID), .token(.badSignature): "invalid identity token signature"
        case .expired: "identity token expired"
        case .keysUnavailable: "Apple's signing keys are unavailable; try again later"
        case .nonceMissing: "the identity token carries a nonce; send the nonce the sign-in was made with"
        case .nonceMismatch:
            "the nonce sent is not the identity token's: send the raw nonce whose SHA-256 the request to Apple carried"
        default: "invalid identity token"
        }
    }

    package var description: String {
        detail.isEmpty ? "Apple JWT refused: \(reason)" : "Apple JWT refused: \(reason): \(detail)"
    }

    /// A JOSE-layer refusal; a key that does not fit RS256 reads as a malformed token.
    init(_ error: JWTError) {
        self.init(.token(error.reason == .keyMismatch ? .malformed : error.reason), detail: error.detail)
    }
}

extension AppleIDError.Reason: CustomStringConvertible {
    /// The reason's name, a JOSE-layer one without its wrapping: `badSignature`, `wrongAudience`.
    package var description: String {
        switch self {
        case .token(let reason): "\(reason)"
        case .wrongIssuer: "wrongIssuer"
        case .wrongAudience: "wrongAudience"
        case .expired: "expired"
        case .issuedInFuture: "issuedInFuture"
        case .tooOld: "tooOld"
        case .missingSubject: "missingSubject"
        case .nonceMismatch: "nonceMismatch"
        case .nonceMissing: "nonceMissing"
        case .keysUnavailable: "keysUnavailable"
        }
    }

    /// Not a well-formed JWS/JWT, or a claim of the wrong type.
    package static let malformed = Self.token(.malformed)
    /// No Apple key has the token's `kid`.
    package static let unknownKeyID = Self.token(.unknownKeyID)
    /// The RS256 signature does not verify.
    package static let badSignature = Self.token(.badSignature)
}
