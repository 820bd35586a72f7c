import Web

/// The chores' outcomes for `GET /metrics`: tokens by chore and outcome, and throttled calls waited out.
final class ChoreCounters: Sendable {
    private let outcomes = AtomicCounters(count: AppleChoreKind.allCases.count * ChoreOutcome.metricLabels.count)
    private let throttled = AtomicCounters(count: AppleChoreKind.allCases.count)
    /// Runs started by this instance's schedule.
    let runs = AtomicCounters(count: AppleChoreKind.allCases.count)

    func record(_ chore: AppleChoreKind, _ outcome: ChoreOutcome, throttledRetries: Int) {
        outcomes.add(chore.slot * ChoreOutcome.metricLabels.count + outcome.metricSlot)
        if throttledRetries > 0 { throttled.add(chore.slot, throttledRetries) }
    }

    /// Tokens of `chore` that ended with the outcome labelled `label` (one of `ChoreOutcome.metricLabels`).
    func count(_ chore: AppleChoreKind, label: String) -> Int {
        guard let slot = ChoreOutcome.metricLabels.firstIndex(of: label) else { return 0 }
        return outcomes[chore.slot * ChoreOutcome.metricLabels.count + slot]
    }

    /// Throttled answers of `chore` waited out and retried.
    func throttledRetries(_ chore: AppleChoreKind) -> Int { throttled[chore.slot] }
}
