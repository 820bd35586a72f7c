import Synchronization

extension EventLoop {
    /// What `body` answers, or nil once `timeout` has passed first: a timer on the calling task's loop, else on one
    /// of the shared group's. `body` itself runs on to its own end; only the wait for it is bounded.
    package static func answer<T: Sendable>(within timeout: Duration, _ body: @escaping @Sendable () async -> T)
        async -> T?
    {
        let first = FirstAnswer<T>()
        let loop = EventLoop.current ?? EventLoopGroup.shared.any()
        return await withCheckedContinuation { continuation in
            first.await(continuation)
            let timer = loop.schedule(at: MonotonicClock.deadline(after: timeout)) { first.give(nil) }
            Task {
                first.give(await body())
                loop.cancel(timer)
            }
        }
    }
}

/// The continuation of `EventLoop.answer(within:_:)`, resumed once, by whichever comes first.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T?, Never>?>(nil)

    func await(_ continuation: CheckedContinuation<T?, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func give(_ answer: T?) { continuation.withLock { $0.take() }?.resume(returning: answer) }
}
