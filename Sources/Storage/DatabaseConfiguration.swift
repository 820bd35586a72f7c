/// How connections are set up and how the pool schedules work.
package struct DatabaseConfiguration: Sendable {
    /// `PRAGMA synchronous` in WAL mode (https://sqlite.org/pragma.html#pragma_synchronous).
    package enum Synchronous: Sendable {
        /// The WAL is synced at checkpoints only. A commit is in the operating system's hands when `COMMIT`
        /// returns, so a crash of the *process* never loses it; a power loss or kernel panic may lose the
        /// last commits (never corrupts). The default: the fastest setting that survives a process crash.
        case normal
        /// The WAL is synced at every commit: committed writes also survive power loss, at the cost of an
        /// `fsync` per transaction (amortised by the pool's group commit).
        case full
    }

    /// The default `busyTimeout`.
    package static let defaultBusyTimeoutMilliseconds = 5_000
    /// The default `cacheSizeKiB` (8 MiB per connection).
    package static let defaultCacheSizeKiB = 8_192
    /// The default `readerCount`.
    package static let defaultReaderCount = 4
    /// The default `maxWriteBatch`.
    package static let defaultMaxWriteBatch = 64
    /// The default `pageSize`: 1 KiB. A sign-in adds a row at a random place in the index of Apple user ids,
    /// dirtying one leaf page that the WAL then holds whole; with 1 KiB pages new-user sign-ins write about half
    /// the WAL of SQLite's 4 KiB default and run faster (BENCHMARKS.md has the figures). Reads of single rows by
    /// key do not notice.
    package static let defaultPageSize = 1_024
    /// The default `walLimitBytes`: 64 MiB.
    package static let defaultWALLimitBytes = 64 << 20
    /// The default `checkpointThresholdPages`: 250 pages (250 KiB with the default page size), a quarter of
    /// SQLite's own automatic-checkpoint threshold. A checkpoint beside the writer takes a core for as long as it
    /// copies pages, so under load on one core it delays the requests in flight meanwhile; four times as many
    /// checkpoints of a quarter of the size spread that delay, and shorten the latency tail of sign-ins on one
    /// core at the same rate (BENCHMARKS.md, "checkpoints beside the writer"). The checkpoint at the WAL limit has
    /// less left to copy.
    package static let defaultCheckpointThresholdPages = 250
    /// The default `commitWait`: 1 ms, a few percent of the shortest round trip to Apple that a sign-in with an
    /// authorization code has waited for before its write.
    package static let defaultCommitWait: Duration = .milliseconds(1)

    /// The page size of a database this creates (`PRAGMA page_size`, a power of two from 512 to 65536); an
    /// existing file keeps the size it was created with.
    package var pageSize: Int
    /// Durability of commits; see `Synchronous`.
    package var synchronous: Synchronous
    /// How long a connection waits for a lock held by another process before failing with `.busy`.
    package var busyTimeoutMilliseconds: Int
    /// The page cache of each connection (`PRAGMA cache_size = -N`).
    package var cacheSizeKiB: Int
    /// The number of read-only connections in a `DatabasePool` (at least 1).
    package var readerCount: Int
    /// The most write closures a `DatabasePool` commits in one transaction (at least 1; 1 turns group commit off).
    package var maxWriteBatch: Int
    /// A `DatabasePool` checkpoints the WAL on a connection of its own once the WAL holds this many pages, so the
    /// writer never stalls on a checkpoint's `fsync`; 0 leaves SQLite's automatic checkpoint in the writer.
    package var checkpointThresholdPages: Int
    /// How large a `DatabasePool`'s WAL may grow under a write load that never pauses before the writer waits for
    /// a checkpoint to finish, so that the WAL can start over from its beginning (with checkpoints beside the writer).
    package var walLimitBytes: Int
    /// How long a write that may wait (`WriteUrgency.mayWait`) waits at most for other writes to share its commit
    /// with; zero commits it like any other.
    package var commitWait: Duration
    /// Whether the last connection to close checkpoints the WAL into the database file and deletes it (SQLite's
    /// default). Off for commands that must leave the file as they found it (`siwa doctor` after a crash).
    package var checkpointsOnClose = true

    /// Sets `checkpointsOnClose` so that closing leaves the file at `path` as it is now: one without a WAL is one
    /// file again (checkpointed, as a clean stop leaves it); one with a WAL beside it (a running server's, or a
    /// crash's) is not checkpointed, as a truncating checkpoint would hold a running server's writes back while it
    /// waited for its readers. Call it before opening: opening makes a WAL.
    package mutating func leaveAsFound(_ path: String) {
        checkpointsOnClose = !Database.hasWAL(beside: path)
    }
    /// Where writes queued from inside a round of this executor commit: at the end of that round, on its thread
    /// (see `RoundExecutor`); `nil` sends every write to the pool's writer thread.
    package var roundExecutor: (any RoundExecutor)?

    package init(
        synchronous: Synchronous = .normal,
        pageSize: Int = defaultPageSize,
        busyTimeoutMilliseconds: Int = defaultBusyTimeoutMilliseconds,
        cacheSizeKiB: Int = defaultCacheSizeKiB,
        readerCount: Int = defaultReaderCount,
        maxWriteBatch: Int = defaultMaxWriteBatch,
        checkpointThresholdPages: Int = defaultCheckpointThresholdPages,
        walLimitBytes: Int = defaultWALLimitBytes,
        commitWait: Duration = defaultCommitWait,
        roundExecutor: (any RoundExecutor)? = nil
    ) {
        self.synchronous = synchronous
        self.pageSize = pageSize
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.cacheSizeKiB = cacheSizeKiB
        self.readerCount = readerCount
        self.maxWriteBatch = maxWriteBatch
        self.checkpointThresholdPages = checkpointThresholdPages
        self.walLimitBytes = walLimitBytes
        self.commitWait = commitWait
        self.roundExecutor = roundExecutor
    }
}
