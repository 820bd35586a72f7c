import AppleID

/// The `result` label of `siwa_token_verifications_total`: `ok`, or why an identity token was refused.
enum VerificationResult: String, CaseIterable, Sendable {
    case ok
    case malformed
    case unsupportedAlgorithm = "unsupported_algorithm"
    case criticalHeader = "critical_header"
    case forbiddenHeader = "forbidden_header"
    case unknownKeyID = "unknown_key_id"
    case badSignature = "bad_signature"
    case wrongIssuer = "wrong_issuer"
    case wrongAudience = "wrong_audience"
    case expired
    case issuedInFuture = "issued_in_future"
    case tooOld = "too_old"
    case missingSubject = "missing_subject"
    case nonceMismatch = "nonce_mismatch"
    case nonceMissing = "nonce_missing"
    case keysUnavailable = "keys_unavailable"

    init(_ reason: AppleIDError.Reason) {
        self = switch reason {
        case .token(.malformed), .token(.keyMismatch): .malformed
        case .token(.unsupportedAlgorithm): .unsupportedAlgorithm
        case .token(.criticalHeader): .criticalHeader
        case .token(.forbiddenHeader): .forbiddenHeader
        case .token(.unknownKeyID): .unknownKeyID
        case .token(.badSignature): .badSignature
        case .wrongIssuer: .wrongIssuer
        case .wrongAudience: .wrongAudience
        case .expired: .expired
        case .issuedInFuture: .issuedInFuture
        case .tooOld: .tooOld
        case .missingSubject: .missingSubject
        case .nonceMismatch: .nonceMismatch
        case .nonceMissing: .nonceMissing
        case .keysUnavailable: .keysUnavailable
        }
    }

    /// Position in `allCases`: the result's counter.
    var slot: Int { Self.slots[self] ?? 0 }

    private static let slots = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
}
