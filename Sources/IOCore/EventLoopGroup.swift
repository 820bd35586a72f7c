import Glibc
import Synchronization

/// Event loops, each on a thread of its own, started together and stopped together: the threads that wait on
/// I/O in this process. A server gives one group to everything that waits (its HTTP listener and connections,
/// its PostgreSQL pool, its HTTP client), so their number never grows with the load.
///
/// ```swift
/// let group = try EventLoopGroup(loopCount: 2)
/// let loop = group.any()          // the calling thread's loop, if it is one of ours
/// await loop.sleep(until: MonotonicClock.deadline(after: .milliseconds(5)))
/// group.shutdown()
/// ```
package final class EventLoopGroup: Sendable {
    package let loops: [EventLoop]
    private let threads: Mutex<[LoopThread]>
    private let counter = Atomic<Int>(0)

    /// Starts `loopCount` loops (at least 1), each running on a new thread.
    package init(loopCount: Int) throws {
        let loops = try (0..<max(1, loopCount)).map { try EventLoop(index: $0) }
        self.loops = loops
        threads = Mutex(loops.map { loop in LoopThread { loop.run() } })
    }

    /// One loop per CPU this process may use (`CPUCount.usable`).
    package convenience init() throws {
        try self.init(loopCount: CPUCount.usable)
    }

    /// The process's default group, one loop per usable CPU, started on first use and never stopped: for clients
    /// and pools made without a group (operators' commands, tests). A server passes its own.
    package static let shared: EventLoopGroup = {
        do {
            return try EventLoopGroup()
        } catch {
            fatalError("cannot start the default event loop: \(error)")
        }
    }()

    /// The loops in turn.
    package func next() -> EventLoop {
        loops[counter.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// The calling thread's loop when it is one of this group's (no thread hop for what it starts), else `next()`.
    package func any() -> EventLoop {
        current ?? next()
    }

    /// The calling thread's loop when it is one of this group's, else nil.
    package var current: EventLoop? {
        guard let current = EventLoop.current, loops.contains(where: { $0 === current }) else { return nil }
        return current
    }

    /// Stops every loop after its current iteration and waits for their threads; jobs still queued run on
    /// Dispatch's global queue. Safe to call more than once.
    package func shutdown() {
        for loop in loops { loop.stop() }
        let stopping = threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for thread in stopping { thread.join() }
    }
}

extension EventLoop {
    /// The loop whose thread is calling, or nil off every loop thread.
    package static var current: EventLoop? { CurrentLoop.get() }

    /// Whether the calling thread is this loop's.
    package var inEventLoop: Bool { CurrentLoop.get() === self }

    /// Debug builds stop here when called off this loop's thread: for code that touches state only the loop owns.
    package func assertInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inEventLoop, "must run on event loop \(index)", file: file, line: line)
    }

    /// Debug builds stop here when called on any event loop's thread: for code that blocks (file I/O, DNS, a lock
    /// held across a system call), which would stall every socket of that loop.
    package static func assertNotInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(CurrentLoop.get() == nil, "blocking call on an event loop thread", file: file, line: line)
    }
}

/// The loop of the calling thread, in a thread-specific slot set by `EventLoop.run()`.
enum CurrentLoop {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func set(_ loop: EventLoop?) {
        pthread_setspecific(key, loop.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    static func get() -> EventLoop? {
        pthread_getspecific(key).map { Unmanaged<EventLoop>.fromOpaque($0).takeUnretainedValue() }
    }
}
