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

    /// Nanoseconds from `start` to `end`, 0 when `start` is later. Times read on different threads are not ordered
    /// as they were taken: a stamp set by another thread after this one read `now()` is later than it, and a
    /// wrapping difference would read as centuries (found by a flaky test: a connection given back to the pool
    /// just as a loop's sweep began was closed as idle too long).
    package static func elapsed(from start: UInt64, to end: UInt64) -> UInt64 {
        end > start ? end - start : 0
    }

    /// The deadline of the first of `parties` attempts, made one after another, that share evenly what is left of
    /// `deadline` (a host's addresses, a URI's hosts): `deadline` itself for the last one, or once it has passed.
    package static func share(of deadline: UInt64, among parties: Int, now: UInt64 = now()) -> UInt64 {
        guard now < deadline, parties > 1 else { return deadline }
        return now + (deadline - now) / UInt64(parties)
    }

    /// `duration` in whole nanoseconds, at least 0, saturating.
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
