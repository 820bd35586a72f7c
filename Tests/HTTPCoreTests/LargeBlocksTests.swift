import Glibc
import TestSupport
import Testing
@testable import HTTPCore

/// A started server has fixed glibc's mmap threshold: a large block is a mapping of its own, given back to the system
/// when freed, even after a larger one was freed (which, by default, raises the threshold above it).
struct LargeBlocksTests {
    /// glibc's chunk header, the word before the block, marks a block served by its own mapping (`IS_MMAPPED`, 0x2).
    private func isOwnMapping(_ block: UnsafeMutableRawPointer) -> Bool {
        (block - MemoryLayout<UInt>.size).load(as: UInt.self) & 0x2 != 0
    }

    @Test(.disabled(if: Sanitizer.active != nil, "the sanitizers' malloc is not glibc's"))
    func aStartedServerGivesLargeBlocksBackWhenFreed() async throws {
        try await withServer { _, _ in
            free(malloc(4 << 20))  // what would raise glibc's threshold to 4 MiB
            for size in [Int(LargeBlocks.mmapThreshold), 1 << 20, 3 << 20] {
                let block = try #require(malloc(size))
                #expect(isOwnMapping(block), "\(size) bytes")
                free(block)
            }
            let small = try #require(malloc(Int(LargeBlocks.mmapThreshold) / 2))
            #expect(!isOwnMapping(small), "below the threshold: from an arena")
            free(small)
        }
    }
}
