import Glibc

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`): what every deadline on an event loop is measured in.
package enum MonotonicClock {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// `now()` plus `duration` (a negative duration counts as zero).
    package static func deadline(after duration: Duration) -> UInt64 {
        now() &+ nanoseconds(duration)
    }

    /// `duration` in whole nanoseconds, at least 0, saturating.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
