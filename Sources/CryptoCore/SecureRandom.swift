import COpenSSL
import Glibc
import Synchronization

/// Cryptographically secure random bytes from OpenSSL's DRBG (RAND_bytes(3)).
///
/// Small draws are served from a reserve that one `RAND_bytes` call fills, `RandomReserve.capacity` bytes at a
/// time: each call costs about 13,000 instructions (the DRBG's locks, its fork check and its bookkeeping) however
/// few bytes it makes, and a sign-in draws a few dozen. Bytes handed out are wiped from the reserve, and a forked
/// child finds the reserve empty (`MADV_WIPEONFORK`), so no two processes ever hand out the same bytes.
package enum SecureRandom {
    /// Draws larger than this bypass the reserve.
    package static let maxReservedDraw = 64

    /// `count` random bytes.
    /// - Throws: ``OpenSSLError`` if the generator is not seeded or fails; never returns weak bytes.
    package static func bytes(count: Int) throws -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        guard count > 0 else { return [] }
        if count <= maxReservedDraw, let reserve = RandomReserve.shared {
            return try [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                try reserve.draw(into: out)
                initialized = count
            }
        }
        var bytes = [UInt8](repeating: 0, count: count)
        try check(RAND_bytes(&bytes, Int32(count)), "RAND_bytes")
        return bytes
    }
}

/// One page of bytes from `RAND_bytes`, handed out front to back and wiped as they go; owned by this object and
/// unmapped in `deinit`. The page is marked `MADV_WIPEONFORK`: a child process sees it zeroed, which reads as
/// empty, since the count of bytes left is kept in the page itself.
final class RandomReserve: @unchecked Sendable {  // the page is read and written under `lock` only
    /// Bytes of randomness per refill: one page less the count kept in front of them.
    static let capacity = pageSize - MemoryLayout<Int>.size
    private static let pageSize = 4096

    /// The process's reserve; nil where the kernel cannot wipe a page on fork (before Linux 4.14), and then
    /// every draw goes to `RAND_bytes`.
    static let shared = RandomReserve()

    /// The page: the count of unused bytes (an `Int`), then `capacity` bytes, the unused ones at the end.
    private let page: UnsafeMutableRawPointer
    private let lock = Mutex(())

    private init?() {
        guard let page = mmap(nil, Self.pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              page != MAP_FAILED else { return nil }
        guard madvise(page, Self.pageSize, MADV_WIPEONFORK) == 0 else {
            munmap(page, Self.pageSize)
            return nil
        }
        self.page = page
    }

    deinit {
        memset(page, 0, Self.pageSize)
        munmap(page, Self.pageSize)
    }

    /// The page's unused count and the bytes already handed out, under the lock (for tests).
    func inspect() -> (unused: Int, handedOut: [UInt8], address: UInt) {
        lock.withLock { _ in
            let left = page.load(as: Int.self)
            let used = Self.capacity - min(left, Self.capacity)
            let bytes = page + MemoryLayout<Int>.size
            return (left, Array(UnsafeRawBufferPointer(start: bytes, count: used)), UInt(bitPattern: page))
        }
    }

    /// Fills `out` (at most `capacity` bytes) with unused bytes, refilling the page when it has too few.
    func draw(into out: UnsafeMutableBufferPointer<UInt8>) throws {
        precondition(out.count <= Self.capacity, "draw larger than the reserve")
        guard let destination = out.baseAddress, out.count > 0 else { return }
        try lock.withLock { _ in
            let bytes = page + MemoryLayout<Int>.size
            var left = page.load(as: Int.self)
            if left < out.count || left > Self.capacity {
                try check(RAND_bytes(bytes.assumingMemoryBound(to: UInt8.self), Int32(Self.capacity)), "RAND_bytes")
                left = Self.capacity
            }
            let start = bytes + (Self.capacity - left)
            destination.update(from: start.assumingMemoryBound(to: UInt8.self), count: out.count)
            memset(start, 0, out.count)
            page.storeBytes(of: left - out.count, as: Int.self)
        }
    }
}
