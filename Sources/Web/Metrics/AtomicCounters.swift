import Synchronization

/// A fixed number of integer counters, each an `Atomic<Int>` at a stable heap address.
///
/// `add` is one relaxed, wrapping atomic add (a single `lock xadd` on x86-64, no compare-and-swap loop): no lock,
/// no allocation, safe from any thread. Reads at scrape time are
/// relaxed too, so a scrape sees each counter at some recent value, not one consistent snapshot of all.
package final class AtomicCounters: @unchecked Sendable {
    /// The number of counters.
    package let count: Int
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    /// - Parameter count: how many counters, all starting at 0.
    package init(count: Int) {
        precondition(count >= 0, "AtomicCounters needs a count of at least 0")
        self.count = count
        slots = .allocate(capacity: max(count, 1))
        for index in 0..<count { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Adds `amount` to counter `index`.
    @inline(__always)
    package func add(_ index: Int, _ amount: Int = 1) {
        precondition(index >= 0 && index < count, "counter index out of range")
        slots[index].wrappingAdd(amount, ordering: .relaxed)
    }

    /// Stores `value` in counter `index` (for gauges).
    package func store(_ index: Int, _ value: Int) {
        precondition(index >= 0 && index < count, "counter index out of range")
        slots[index].store(value, ordering: .relaxed)
    }

    /// The current value of counter `index`.
    package subscript(index: Int) -> Int {
        precondition(index >= 0 && index < count, "counter index out of range")
        return slots[index].load(ordering: .relaxed)
    }
}
