import Dispatch
import Glibc
import IOCore
import Synchronization
import Testing
@testable import HTTPCore

/// The resolver with an injected lookup, so that a slow or counted DNS needs no network.
struct DNSResolverTests {
    /// A lookup that answers 127.0.0.1 after `delay`, counting its calls.
    final class SlowLookup: Sendable {
        let calls = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let delay: Duration

        init(delay: Duration) { self.delay = delay }

        var lookup: DNSResolver.Lookup {
            { [self] _, port in
                calls.add(1, ordering: .relaxed)
                let (seconds, attoseconds) = delay.components
                var wait = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                nanosleep(&wait, nil)
                defer { finished.add(1, ordering: .relaxed) }
                return try HTTPClientAddress.resolve(host: "127.0.0.1", port: port)
            }
        }
    }

    let loop = EventLoopGroup.shared.next()

    @Test func aCallerWaitsNoLongerThanItsDeadlineAndTheAnswerStillFillsTheCache() async throws {
        // The lookup blocks until the test lets it go, so the caller's deadline passes while it runs, whatever the
        // machine's load.
        let gate = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let resolver = DNSResolver { _, port in
            calls.add(1, ordering: .relaxed)
            gate.wait()
            defer { finished.add(1, ordering: .relaxed) }
            return try HTTPClientAddress.resolve(host: "127.0.0.1", port: port)
        }
        let error = await #expect(throws: HTTPClientError.self) {
            _ = try await resolver.resolve(host: "apple.example", port: 443,
                                           deadline: MonotonicClock.deadline(after: .milliseconds(100)), loop: loop)
        }
        #expect(error?.kind == .connectTimeout)
        #expect(finished.load(ordering: .relaxed) == 0, "the caller gave up while the lookup still ran")
        gate.signal()
        for _ in 0..<300 where finished.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        let addresses = try await resolver.resolve(host: "apple.example", port: 443,
                                                   deadline: MonotonicClock.deadline(after: .seconds(30)), loop: loop)
        #expect(addresses.count == 1)
        #expect(calls.load(ordering: .relaxed) == 1, "answered from the cache")
    }

    @Test func concurrentCallersShareOneLookup() async throws {
        let slow = SlowLookup(delay: .milliseconds(100))
        let resolver = DNSResolver(lookup: slow.lookup)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await resolver.resolve(host: "apple.example", port: 443,
                                               deadline: MonotonicClock.deadline(after: .seconds(10)),
                                               loop: self.loop).count
                }
            }
            for try await count in group { #expect(count == 1) }
        }
        #expect(slow.calls.load(ordering: .relaxed) == 1)
    }

    @Test func anExpiredAnswerIsLookedUpAgain() async throws {
        let slow = SlowLookup(delay: .zero)
        let resolver = DNSResolver(cacheLifetime: .zero, lookup: slow.lookup)
        for _ in 0..<3 {
            _ = try await resolver.resolve(host: "apple.example", port: 443,
                                           deadline: MonotonicClock.deadline(after: .seconds(10)), loop: loop)
        }
        #expect(slow.calls.load(ordering: .relaxed) == 3)
    }

    @Test func ipLiteralsNeedNoLookup() async throws {
        let slow = SlowLookup(delay: .zero)
        let resolver = DNSResolver(lookup: slow.lookup)
        let addresses = try await resolver.resolve(host: "::1", port: 80, deadline: .max, loop: loop)
        #expect(addresses.count == 1 && addresses[0].isLoopback)
        #expect(slow.calls.load(ordering: .relaxed) == 0)
    }
}
