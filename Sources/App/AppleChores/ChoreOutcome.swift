/// What became of one claimed token.
enum ChoreOutcome: Sendable, Equatable {
    /// Apple still honours the token (`validate-tokens`).
    case valid
    /// `validate-tokens`: Apple no longer honours it (`invalid_grant`, RFC 6749 §5.2), so it is marked and its user's
    /// bearer tokens and sessions end. `retry-revocations`: Apple revoked it.
    case revoked
    /// Left due for the next run, for `reason` (no token material).
    case failed(reason: String)
    /// Not tried: the run was stopped first; due again for the next run.
    case interrupted

    /// The label of the outcome in metrics.
    var metricLabel: String {
        switch self {
        case .valid: "valid"
        case .revoked: "revoked"
        case .failed: "failed"
        case .interrupted: "interrupted"
        }
    }

    /// Every `metricLabel`, in the order of `metricSlot`.
    static let metricLabels = ["valid", "revoked", "failed", "interrupted"]

    /// The outcome's index in `metricLabels`.
    var metricSlot: Int {
        switch self {
        case .valid: 0
        case .revoked: 1
        case .failed: 2
        case .interrupted: 3
        }
    }
}
