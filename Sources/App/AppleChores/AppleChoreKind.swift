/// Apple's two chores: `siwa apple validate-tokens` (each stored refresh token checked with Apple at most once a
/// day, as Apple's "Revoke tokens" and "Generate and validate tokens" documentation asks) and
/// `siwa apple retry-revocations` (revocations that failed when their account was deleted).
package enum AppleChoreKind: String, Sendable, CaseIterable {
    case validateTokens = "validate-tokens"
    case retryRevocations = "retry-revocations"

    /// The chore's index among `allCases`, for metrics.
    var slot: Int {
        switch self {
        case .validateTokens: 0
        case .retryRevocations: 1
        }
    }
}
