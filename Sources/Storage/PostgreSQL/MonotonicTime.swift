import Glibc

/// Monotonic nanoseconds (`CLOCK_MONOTONIC`), for deadlines.
enum MonotonicTime {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// `now()` plus `duration`.
    static func after(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return now() + UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
    }
}
