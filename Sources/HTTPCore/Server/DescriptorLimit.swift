import Glibc

/// The process's open-file budget (RLIMIT_NOFILE) and the connection cap it allows.
///
/// Running out of descriptors is not only `accept` failing with EMFILE: libdispatch's thread-pool monitor
/// traps when it cannot open `/proc` files. So connections are capped below the soft limit, leaving a reserve
/// for the rest of the process (files, outgoing connections, logs, Dispatch).
enum DescriptorLimit {
    /// Descriptors never used for connections: a fixed floor plus an eighth of the limit.
    static func reserve(for limit: Int) -> Int { 64 + limit / 8 }

    /// Raises the soft limit to the hard limit (as Go and nginx do) and returns the soft limit now in force.
    static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(min(limit.rlim_cur, rlim_t(Int.max)))
    }

    /// The connection limit actually enforced: the configured one, or less when descriptors are scarce.
    static func connectionCap(configured: Int, softLimit: Int) -> Int {
        max(1, min(configured, softLimit - reserve(for: softLimit)))
    }
}
