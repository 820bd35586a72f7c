import Glibc

/// A POSIX thread running one closure, joined exactly once; keeps `epoll_wait` off the cooperative pool.
package final class LoopThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Immutable after `init` except `joined`, which only `join()` touches, from the thread that stops the server.
    package init(_ run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        let status = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let body = Unmanaged<Body>.fromOpaque(argument).takeRetainedValue()
            body.run()
            return nil
        }, body)
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
