import CLinux

/// Large blocks (request bodies, up to `MAX_BODY_SIZE` each) go back to the system when freed.
///
/// glibc's malloc serves a block of at least `M_MMAP_THRESHOLD` bytes with a mapping of its own, which `free` unmaps.
/// By default that threshold rises to the size of the largest such block freed (up to 32 MiB), and from then on
/// blocks below it come from the arenas of the threads that asked, which keep what is freed. A request's body buffer
/// is reserved at its declared `Content-Length` on a loop thread, so clients that send large bodies at once set a peak
/// the process then held until it ended. Found by a review: 400 connections each sending 900 KB of a 1 MB body left
/// the server at 398 MB RSS, with 1.5 MB in use. Setting the threshold fixes it (mallopt(3)): a large block is a mapping
/// unmapped when freed (unless an arena already has that much free), at the cost of a `mmap` and a `munmap` for a
/// body over 128 KiB (a sign-in's is about 2 KB). BENCHMARKS.md has the measurements.
package enum LargeBlocks {
    /// Blocks of this many bytes or more are mappings of their own: glibc's initial default, kept fixed.
    package static let mmapThreshold: Int32 = 128 * 1024

    /// Fixes glibc's threshold for the whole process; idempotent. Whether glibc took it.
    @discardableResult
    package static func returnToTheSystemWhenFreed() -> Bool {
        mallopt(CLINUX_M_MMAP_THRESHOLD, mmapThreshold) == 1
    }
}
