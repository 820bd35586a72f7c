import Foundation

/// `APPLE_CHORES_INTERVAL`: how often `siwa serve` runs Apple's chores itself.
extension Configuration {
    /// The default interval with the Apple key configured: a day, the rate Apple asks tokens be validated at.
    package static let defaultAppleChoresInterval: TimeInterval = 24 * 60 * 60
    /// The longest interval accepted.
    package static let maxAppleChoresInterval: TimeInterval = 7 * 24 * 60 * 60
    /// The shortest interval accepted but 0: each look at the schedule is a write to the database, and tokens are
    /// checked at most once a day anyway. Found by a review: `0.001` ran the chores back to back.
    package static let minAppleChoresInterval: TimeInterval = 60

    /// How often the server runs the chores, or nil when it does not: off without the Apple key, or with
    /// `APPLE_CHORES_INTERVAL=0` (for those who run them from cron).
    package var appleChoresEvery: TimeInterval? {
        guard appleKey != nil else { return nil }
        let interval = appleChoresInterval ?? Self.defaultAppleChoresInterval
        return interval > 0 ? interval : nil
    }

    /// `0`, or a number with a unit (`s`, `m`, `h`, `d`; seconds without one) from `minAppleChoresInterval` to
    /// `maxAppleChoresInterval`.
    static func interval(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let (number, unit) = trimmed.last.flatMap { units[$0] }.map { (trimmed.dropLast(), $0) } ?? (Substring(trimmed), 1)
        guard let value = Double(environmentValue: String(number)), value.isFinite, value >= 0 else { return nil }
        let seconds = value * unit
        return seconds == 0 || (minAppleChoresInterval...maxAppleChoresInterval).contains(seconds) ? seconds : nil
    }
}
