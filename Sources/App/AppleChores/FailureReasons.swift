/// Failures counted by reason, as a chore's or a transfer's summary line reports them: `3 failed (apple:
/// invalid_request: 2, unreachable: 1)`, reasons in order.
struct FailureReasons: Sendable, Equatable {
    private(set) var counts: [String: Int] = [:]

    /// All failures, whatever their reason.
    var total: Int { counts.values.reduce(0, +) }

    var reasons: Dictionary<String, Int>.Keys { counts.keys }

    mutating func add(_ reason: String, count: Int = 1) { counts[reason, default: 0] += count }

    /// `N failed`, with the reasons and their counts in parentheses when there are any.
    var summaryPart: String {
        let reasons = counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        return "\(total) failed" + (reasons.isEmpty ? "" : " (\(reasons))")
    }
}
