import Dispatch
import Glibc

/// Timers on the loop: a callback or a parked task at a monotonic deadline, fired by the loop thread (the loop's
/// `epoll_wait` is shortened to the earliest one).
extension EventLoop {
    /// Identifies a scheduled timer, for `cancel`.
    package struct TimerID: Hashable, Sendable {
        let value: UInt64
    }

    /// Calls `action` on the loop thread once `deadline` (monotonic ns) has passed, unless cancelled first.
    /// `action` must not block. On a stopped loop it runs at once on Dispatch's global queue, as the loop's jobs do
    /// then: nothing else would fire it, and never on the calling thread, which may hold a lock `action` takes (the
    /// Apple client's pool schedules a waiting request's expiry under its lock) or be an action re-arming itself.
    @discardableResult
    package func schedule(at deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> TimerID {
        let (id, wake) = state.withLock { state -> (TimerID?, Bool) in
            guard !state.stopped else { return (nil, false) }
            let id = state.timers.add(deadline: deadline, action)
            return (id, state.sleeping && deadline < state.plannedWake)
        }
        guard let id else {
            DispatchQueue.global().async(execute: action)
            return TimerID(value: 0)
        }
        if wake { wakeUp() }
        return id
    }

    /// Cancels a timer that has not fired; nothing happens for one that has.
    package func cancel(_ timer: TimerID) {
        state.withLock { $0.timers.cancel(timer) }
    }

    /// Parks the calling task until `deadline` (monotonic ns), holding no thread.
    package func sleep(until deadline: UInt64) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            schedule(at: deadline) { continuation.resume() }
        }
    }

    /// Fires the timers due at `now`.
    func runDueTimers(now: UInt64) {
        let due = state.withLock { $0.timers.takeDue(now: now) }
        for action in due { action() }
    }

    func wakeUp() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }
}

/// A binary min-heap of deadlines; cancelled entries are dropped when they reach the top.
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
        var action: @Sendable () -> Void
    }

    private var heap: [Entry] = []
    /// The ids in `heap` that are not cancelled: cancelling removes an id here, with no search of the heap.
    private var live: Set<UInt64> = []
    private var nextID: UInt64 = 0

    var earliest: UInt64? { heap.first?.deadline }
    var count: Int { live.count }

    mutating func add(deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> EventLoop.TimerID {
        nextID += 1
        heap.append(Entry(deadline: deadline, id: nextID, action: action))
        live.insert(nextID)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return EventLoop.TimerID(value: nextID)
    }

    mutating func cancel(_ timer: EventLoop.TimerID) {
        guard live.remove(timer.value) != nil else { return }
        dropCancelledTop()
    }

    /// Removes and returns the actions due at `now`, earliest first.
    mutating func takeDue(now: UInt64) -> [@Sendable () -> Void] {
        var due: [@Sendable () -> Void] = []
        while let top = heap.first, top.deadline <= now {
            let entry = popTop()
            if live.remove(entry.id) != nil { due.append(entry.action) }
        }
        dropCancelledTop()
        return due
    }

    private mutating func dropCancelledTop() {
        while let top = heap.first, !live.contains(top.id) { _ = popTop() }
    }

    private mutating func popTop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return top }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return top }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
