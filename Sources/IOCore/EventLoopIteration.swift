import Glibc

/// Work deferred to the end of the current iteration of the event loop whose thread is calling.
///
/// An iteration is one pass of a loop: wait for sockets, resume the connections that became ready, run the jobs
/// of their tasks. A task added here runs on the same thread after those jobs and before the loop waits again,
/// once however many times it was added under one key: a subsystem can gather what one iteration's requests
/// asked for and do it once, with no other thread to wake (a store can commit the iteration's writes together
/// this way).
package enum EventLoopIteration {
    /// If the calling thread is an event loop's, runs `task` on it once the current iteration's jobs have run,
    /// and returns `true`; a second call with the same `key` in that iteration adds nothing. On any other thread
    /// it does nothing and returns `false`.
    ///
    /// - Parameters:
    ///   - key: identifies the task within an iteration.
    ///   - task: must be short and must not block for long: every connection of the loop waits meanwhile.
    package static func runAtEnd(key: ObjectIdentifier, _ task: @escaping @Sendable () -> Void) -> Bool {
        guard let tasks = IterationEndTasks.current else { return false }
        tasks.add(key: key, task)
        return true
    }

    /// If the calling thread is an event loop's, runs `task` on it once the loop has nothing left to do (no job
    /// ready, no socket ready, nothing added with `runAtEnd`), just before it would wait, or at the end of the first
    /// iteration after `delay` if the loop stays busy that long; returns `true`. A second call with the same `key`
    /// before then adds nothing (and keeps the first call's limit). On any other thread it returns `false`.
    ///
    /// Work that gains from company but should not wait for nothing (a store's writes, which can share a commit)
    /// can wait here: while the loop is busy more of it comes, and an idle loop does it at once, with no timer to
    /// wake the thread later.
    package static func runWhenIdle(key: ObjectIdentifier, atTheLatestAfter delay: Duration,
                                    _ task: @escaping @Sendable () -> Void) -> Bool {
        guard let tasks = IterationEndTasks.current else { return false }
        tasks.addIdle(key: key, deadline: MonotonicClock.deadline(after: delay), task)
        return true
    }
}

/// The tasks one loop thread runs at the end of its iterations; reached only from that thread.
final class IterationEndTasks {
    /// Most times the tasks that tasks add are run again before the loop goes back to its sockets.
    static let roundsPerIteration = 4

    private var atEnd = KeyedTasks()
    private var whenIdle = KeyedTasks()
    /// The tasks being run, taken from `atEnd` or `whenIdle` (which they may add to meanwhile).
    private var running: [@Sendable () -> Void] = []

    /// The calling thread's tasks, while it runs an event loop.
    static var current: IterationEndTasks? {
        pthread_getspecific(threadKey).map { Unmanaged<IterationEndTasks>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Makes these the calling thread's tasks until `detachFromThread()`; the caller keeps them alive meanwhile.
    func attachToThread() {
        pthread_setspecific(Self.threadKey, Unmanaged.passUnretained(self).toOpaque())
    }

    func detachFromThread() {
        pthread_setspecific(Self.threadKey, nil)
    }

    var isEmpty: Bool { atEnd.isEmpty }
    /// Whether tasks wait for the loop to have nothing left to do.
    var hasIdleTasks: Bool { !whenIdle.isEmpty }
    /// When the earliest of them must run even if the loop is still busy (monotonic ns).
    private(set) var idleDeadline: UInt64 = .max

    func addIdle(key: ObjectIdentifier, deadline: UInt64, _ task: @escaping @Sendable () -> Void) {
        if whenIdle.add(key: key, task) { idleDeadline = min(idleDeadline, deadline) }
    }

    /// Runs the tasks waiting for an idle loop (those they add wait for the next time), then the end tasks
    /// they added.
    func runIdle() {
        idleDeadline = .max
        whenIdle.take(into: &running)
        runTaken()
        run()
    }

    func add(key: ObjectIdentifier, _ task: @escaping @Sendable () -> Void) {
        _ = atEnd.add(key: key, task)
    }

    /// Runs the tasks added so far, then those they added, up to `roundsPerIteration` times.
    func run() {
        for _ in 0..<Self.roundsPerIteration where !atEnd.isEmpty {
            atEnd.take(into: &running)
            runTaken()
        }
    }

    private func runTaken() {
        for task in running { task() }
        running.removeAll(keepingCapacity: true)
    }
}

/// Tasks in the order added, at most one per key until they are taken.
private struct KeyedTasks {
    private var keys: [ObjectIdentifier] = []
    private var tasks: [@Sendable () -> Void] = []

    var isEmpty: Bool { tasks.isEmpty }

    /// Adds `task` unless one with `key` waits already; whether it was added.
    mutating func add(key: ObjectIdentifier, _ task: @escaping @Sendable () -> Void) -> Bool {
        guard !keys.contains(key) else { return false }
        keys.append(key)
        tasks.append(task)
        return true
    }

    /// Moves the waiting tasks into `running` (empty), leaving none; both arrays keep their storage.
    mutating func take(into running: inout [@Sendable () -> Void]) {
        swap(&tasks, &running)
        keys.removeAll(keepingCapacity: true)
    }
}
