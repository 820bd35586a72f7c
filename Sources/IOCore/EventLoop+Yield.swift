/// Yielding to the loop's sockets: a task that could go on working without waiting (a connection whose socket
/// still holds bytes) lets the loop poll its descriptors and serve the tasks they wake before it goes on.
///
/// `Task.yield()` is not enough for a task whose executor is the loop: its job is queued again and runs in the
/// same iteration's job rounds (`runJobs`), before the loop has looked at its other sockets.
extension EventLoop {
    /// Parks the calling task until the loop's next iteration: after its next `epoll_wait`, once the tasks whose
    /// descriptors became ready have been resumed, this one is resumed behind them. While a task is parked here the
    /// loop polls without sleeping (timeout 0), so the pause costs one system call, not a timeout. On a stopped loop
    /// it returns at once.
    ///
    /// A task that yields with bytes still unread on an edge-triggered descriptor must read again when resumed
    /// rather than wait: no new edge will announce the bytes already there.
    package func yieldToSockets() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if !addToRunningLoop({ $0.nextIteration.append(continuation) }) { continuation.resume() }
        }
    }
}
