import CryptoCore

/// Why a JWS or JWT was refused at the JOSE layer. `reason` goes to the log; a client sees only 401.
package struct JWTError: ReasonError, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// Not three base64url parts, bad base64url, bad JSON, a limit exceeded, or a missing member.
        case malformed
        /// `alg` is not in the allow-list for this use (`none`, HMAC, PS*, unknown...).
        case unsupportedAlgorithm
        /// `crit` names an extension we do not understand (RFC 7515 §4.1.11).
        case criticalHeader
        /// The header carries `jku`, `x5u`, `jwk` or `x5c`: key references we never follow.
        case forbiddenHeader
        /// The key does not fit the algorithm (type, curve, `use`, `key_ops` or `alg`).
        case keyMismatch
        /// No key with the header's `kid`, or the `kid` is ambiguous.
        case unknownKeyID
        /// The signature does not verify.
        case badSignature
    }

    package var reason: Reason
    /// Detail for the log; never contains token, key or claim values.
    package var detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package init(reason: Reason) { self.init(reason) }

    package var description: String { detail.isEmpty ? "JWT \(reason)" : "JWT \(reason): \(detail)" }
}
