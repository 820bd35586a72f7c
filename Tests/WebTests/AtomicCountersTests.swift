import Testing
@testable import Web

/// Counters shared by every connection's task: no add is lost under concurrency.
struct AtomicCountersTests {
    @Test func concurrentAddsAreAllCounted() async {
        let counters = AtomicCounters(count: 3)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counters.add(task % 3) }
                    counters.add(2, 5)
                }
            }
        }
        #expect(counters[0] == 30_000)
        #expect(counters[1] == 30_000)
        #expect(counters[2] == 20_000 + 40)
    }

    @Test func storeSetsAGaugeValue() {
        let counters = AtomicCounters(count: 1)
        counters.add(0, 7)
        counters.store(0, 2)
        #expect(counters[0] == 2)
    }
}
