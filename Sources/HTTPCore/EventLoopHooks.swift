/// Code an `HTTPServer` runs on each of its event-loop threads: once as the thread starts, and at the end of
/// every iteration of the loop, after the jobs that were ready have run and before it waits for its sockets
/// again. The use is group commit on the loop thread (`DatabasePool.commitQueuedWrites`): the writes that one
/// iteration's requests queued commit together at its end, with no other thread to wake.
///
/// Both run on the loop thread and hold up its connections while they run: keep them short.
public protocol EventLoopHooks: Sendable {
    /// Called on a loop thread before its first iteration.
    func loopThreadStarted()
    /// Called on a loop thread after each iteration's jobs.
    func loopIterationEnded()
}
