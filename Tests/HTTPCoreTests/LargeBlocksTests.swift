import Glibc
import TestSupport
import Testing
@testable import HTTPCore

/// glibc takes the fixed mmap threshold the server sets at start. What it does to memory (a block of the threshold's
/// size or more is a mapping of its own, unmapped when freed, unless an arena already has that much free) is measured
/// in BENCHMARKS.md, not asserted here: in a test process that other tests share, an arena's free space decides.
struct LargeBlocksTests {
    @Test(.disabled(if: Sanitizer.active != nil, "the sanitizers' malloc is not glibc's"))
    func glibcTakesTheThreshold() {
        #expect(LargeBlocks.returnToTheSystemWhenFreed())
        #expect(LargeBlocks.mmapThreshold == 128 * 1024)
    }
}
