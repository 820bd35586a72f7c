/// Why an ``AES256GCM`` operation was refused.
package struct AEADError: ReasonError, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// The key is not exactly ``AES256GCM/keySize`` bytes.
        case invalidKeySize
        /// The sealed box is shorter than nonce plus tag.
        case truncated
        /// The tag did not verify: wrong key, wrong associated data, or tampered bytes.
        case authenticationFailed
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    package var description: String {
        switch reason {
        case .invalidKeySize: "AES-256-GCM key must be 32 bytes"
        case .truncated: "sealed box too short"
        case .authenticationFailed: "sealed box failed authentication"
        }
    }
}
