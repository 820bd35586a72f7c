import Glibc

/// A POSIX thread for the poller's loop, joined once; keeps `epoll_wait` off Swift's cooperative pool.
final class PollerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var started = false

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `run` on a new thread; called once, from `init` of the owner, before the thread is shared.
    func start(_ run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        started = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, body) == 0
        if !started { Unmanaged<Body>.fromOpaque(body).release() }
    }

    func join() {
        guard started else { return }
        started = false
        pthread_join(thread, nil)
    }
}
