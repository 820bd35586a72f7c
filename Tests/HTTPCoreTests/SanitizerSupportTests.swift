import Dispatch
import Glibc
import Synchronization
import TestSupport
import Testing

/// `Scripts/sanitize thread` preloads an annotation of `Synchronization.Mutex`'s contended path for TSan
/// (`Scripts/sanitizer-support/tsan-mutex.c`); without it every contended `withLock` reads as a data race.
struct SanitizerSupportTests {
    final class Shared: Sendable {
        let values = Mutex<[Int]>([])
    }

    /// Holds the lock long enough that the other threads take the futex slow path; under TSan without the
    /// annotation this test alone reports a "Swift access race".
    @Test func contendedMutexKeepsEveryUpdate() {
        let shared = Shared()
        DispatchQueue.concurrentPerform(iterations: 3) { thread in
            for step in 0..<20 {
                shared.values.withLock { values in
                    values.append(thread * 100 + step)
                    usleep(200)
                }
            }
        }
        #expect(shared.values.withLock { Set($0).count } == 60)
    }

    @Test(.enabled(if: Sanitizer.active == .thread, "only a TSan build needs the annotation"))
    func mutexSlowPathIsAnnotatedUnderTSan() throws {
        let name = "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
        let synchronization = try #require(dlopen("libswiftSynchronization.so", RTLD_LAZY | RTLD_NOLOAD))
        defer { dlclose(synchronization) }
        let original = try #require(dlsym(synchronization, name))
        let bound = try #require(dlsym(nil, name))
        #expect(bound != original, "Mutex's slow path is not annotated: run the TSan build through Scripts/sanitize")
    }
}
