import CLinux
import Glibc

extension EventLoop {
    /// Runs the loop on the calling thread until `stop()`: waits on epoll, resumes the tasks whose sockets became
    /// ready, calls the handlers of watched descriptors, resumes the tasks that yielded to it (`yieldToSockets`),
    /// runs the jobs of tasks that prefer this loop, then the tasks added with `EventLoopIteration.runAtEnd` and the
    /// timers due, and resumes the waits whose deadline has passed (a sweep, at most every `sweepInterval`). Before
    /// it would wait with nothing to do, or once their limit has passed, it runs the tasks added with
    /// `EventLoopIteration.runWhenIdle`. With no deadline and no timer due, it sleeps until the next event.
    package func run() {
        let endTasks = IterationEndTasks()
        endTasks.attachToThread()
        CurrentLoop.set(self)
        defer {
            endTasks.runIdle()
            endTasks.detachFromThread()
            CurrentLoop.set(nil)
        }
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        var ready: [UnsafeContinuation<Readiness, Never>] = []
        ready.reserveCapacity(512)
        var handled: [(@Sendable (UInt32) -> Void, UInt32)] = []
        var lastSweep = MonotonicClock.now()
        var jobs: [UnownedJob] = []
        var yielded: [UnsafeContinuation<Void, Never>] = []
        while true {
            // With nothing left to do, tasks waiting for an idle loop make this wait a look: when no socket is
            // ready either, they run at the end of this iteration instead of after the next wake.
            var idleLook = false
            var sweepDue = UInt64.max
            let timeout: Int32 = state.withLock { state in
                sweepDue = max(state.waiterDeadlineBound, lastSweep + Self.sweepInterval)
                guard state.jobs.isEmpty, endTasks.isEmpty, state.nextIteration.isEmpty else { return 0 }
                if endTasks.hasIdleTasks {
                    idleLook = true
                    return 0
                }
                let until = min(sweepDue, state.timers.earliest ?? .max)
                state.sleeping = true
                state.plannedWake = until
                guard until != .max else { return -1 }
                let now = MonotonicClock.now()
                return until <= now ? 0 : Int32(clamping: (until - now + 999_999) / 1_000_000)
            }
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epfd, $0.baseAddress, Int32($0.count), timeout)
            }
            var wake = false
            state.withLock { state in
                state.sleeping = false
                state.plannedWake = .max
                // Tasks that yield again while their jobs run below wait for the next iteration.
                swap(&state.nextIteration, &yielded)
                for i in 0..<max(Int(count), 0) {
                    let fd = events[i].data.fd
                    let bits = events[i].events
                    if fd == wakeFD {
                        wake = true
                    } else if let handler = state.handlers[fd] {
                        handled.append((handler, bits))
                    } else if let waiter = state.waiters[fd], waiter.events & bits != 0 {
                        state.waiters[fd] = nil
                        if let pending = state.pending[fd] {
                            state.pending[fd] = pending | (bits & (~waiter.events | Self.always))
                        }
                        ready.append(waiter.continuation)
                    } else if let pending = state.pending[fd] {
                        state.pending[fd] = pending | bits
                    }
                }
            }
            for continuation in ready { continuation.resume(returning: .ready) }
            ready.removeAll(keepingCapacity: true)
            for (handler, bits) in handled { handler(bits) }
            handled.removeAll(keepingCapacity: true)
            for continuation in yielded { continuation.resume() }
            yielded.removeAll(keepingCapacity: true)
            if wake {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, 8)
                if state.withLock({ $0.stopped }) {
                    endEveryWait()
                    // The iteration's end tasks run here, on this thread, before the jobs still queued run on
                    // other threads: an end task may touch what those jobs' tasks own (a connection's held
                    // output), which is safe only between this thread's jobs.
                    endTasks.runIdle()
                    handOffJobs()
                    return
                }
            }
            runJobs(&jobs)
            endTasks.run()
            let now = MonotonicClock.now()
            runDueTimers(now: now)
            if now >= sweepDue {
                lastSweep = now
                sweep(now: now)
            }
            if endTasks.hasIdleTasks, (idleLook && count <= 0) || now >= endTasks.idleDeadline { endTasks.runIdle() }
        }
    }

    /// The loop is stopping: every parked task is resumed with `.shutdown` and every timer fires now, so nothing
    /// waits for a loop that will not run again.
    private func endEveryWait() {
        let (waiters, timers, yielded) = state.withLock { state in
            defer {
                state.waiters = [:]
                state.nextIteration = []
            }
            return (Array(state.waiters.values), state.timers.takeDue(now: .max), state.nextIteration)
        }
        for waiter in waiters { waiter.continuation.resume(returning: .shutdown) }
        for continuation in yielded { continuation.resume() }
        for timer in timers { timer() }
    }

    /// Resumes every waiter whose deadline has passed, and notes the earliest deadline left.
    private func sweep(now: UInt64) {
        let expired = state.withLock { state -> [Waiter] in
            var expired: [Waiter] = []
            var earliest = UInt64.max
            for (fd, waiter) in state.waiters {
                if waiter.deadline <= now {
                    expired.append(waiter)
                    state.waiters[fd] = nil
                } else {
                    earliest = min(earliest, waiter.deadline)
                }
            }
            state.waiterDeadlineBound = earliest
            return expired
        }
        for waiter in expired { waiter.continuation.resume(returning: .timedOut) }
    }

    /// Calls `handler` on the loop thread whenever `fd` is ready for `events` (level-triggered unless `events`
    /// says otherwise), in place of resuming a task: for a listening socket. `unwatch` ends it.
    /// - Returns: false when epoll refused the descriptor.
    package func watch(_ fd: Int32, events: UInt32, handler: @escaping @Sendable (UInt32) -> Void) -> Bool {
        state.withLock { $0.handlers[fd] = handler }
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) == 0 else {
            state.withLock { $0.handlers[fd] = nil }
            return false
        }
        return true
    }

    /// Stops calling the handler `watch` set for `fd`.
    package func unwatch(_ fd: Int32) {
        state.withLock { state in
            guard state.handlers.removeValue(forKey: fd) != nil else { return }
            epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
        }
    }

    /// Gives idle server connections (`wait(idle: true)` on a descriptor registered with `drains`) until
    /// `idleDeadline` (monotonic ns) for a request already on its way; later idle waits end no later either.
    package func beginDraining(idleDeadline: UInt64) {
        let wake = state.withLock { state in
            state.drainIdleDeadline = idleDeadline
            var lowered = false
            for (fd, waiter) in state.waiters where waiter.idle && waiter.deadline > idleDeadline {
                state.waiters[fd]?.deadline = idleDeadline
                lowered = true
            }
            return lowered && state.lowerWaiterDeadlineBound(to: idleDeadline)
        }
        if wake { wakeUp() }
    }

    /// Ends the waits of up to `count` server connections waiting for their next request (`wait(…, idleSince:)` on
    /// a descriptor registered with `drains`) that fell idle before `idleBefore` (monotonic ns), the longest idle
    /// first, as if their deadline had passed: each connection then closes as an idle one does at its timeout. How
    /// a server at its connection limit makes room for one waiting to be accepted. A TLS handshake's wait is never
    /// ended here (found by a review: handshakes were cut for waiting connections).
    /// - Returns: how many waits it ended.
    package func endIdleWaits(idleBefore: UInt64, upTo count: Int) -> Int {
        guard count > 0 else { return 0 }
        let ended: [Waiter] = state.withLock { state in
            var oldest: [(fd: Int32, since: UInt64)] = []
            for (fd, waiter) in state.waiters
            where waiter.idleSince != 0 && waiter.idleSince < idleBefore && state.draining.contains(fd) {
                oldest.append((fd, waiter.idleSince))
            }
            oldest.sort { $0.since < $1.since }
            return oldest.prefix(count).compactMap { state.waiters.removeValue(forKey: $0.fd) }
        }
        for waiter in ended { waiter.continuation.resume(returning: .timedOut) }
        return ended.count
    }

    /// The grace period is over: shuts every draining socket down (the peer sees the end, a responder still running
    /// finds its write failing) and ends every wait on one, and every later one, with `.shutdown`. Each descriptor
    /// is still closed by its owner, under the lock `deregister` takes first, so none is reused meanwhile.
    package func closeDrainingSockets() {
        let waiting: [Waiter] = state.withLock { state in
            state.closingDraining = true
            var waiting: [Waiter] = []
            for fd in state.draining {
                shutdown(fd, Int32(SHUT_RDWR))
                if let waiter = state.waiters.removeValue(forKey: fd) { waiting.append(waiter) }
            }
            return waiting
        }
        for waiter in waiting { waiter.continuation.resume(returning: .shutdown) }
    }
}
