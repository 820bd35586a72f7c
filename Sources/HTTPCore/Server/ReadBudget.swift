/// What one connection may still read in the current iteration of its event loop.
///
/// A socket watched edge-triggered is read until it would block, so a client that keeps it full (a body that
/// does not end, a flood of pipelined requests or of empty lines) would keep its connection reading, and the
/// loop from every other socket, for as long as it sends. Past `bytesPerTurn` the connection yields to the loop
/// (`EventLoop.yieldToSockets`) and goes on in the next iteration, after the others.
struct ReadBudget {
    /// Most bytes a connection reads, and parses, in one loop iteration: a fraction of a millisecond of work, so
    /// a connection that always has more to read delays the loop's others by no more than that per iteration.
    static let bytesPerTurn = 128 * 1024

    private(set) var spent = 0

    /// Bytes the connection may still read in this turn.
    var remaining: Int { max(0, Self.bytesPerTurn - spent) }

    var isSpent: Bool { spent >= Self.bytesPerTurn }

    mutating func spend(_ bytes: Int) {
        spent += bytes
    }

    /// A new turn: the loop has polled its sockets since this connection last read.
    mutating func renew() {
        spent = 0
    }
}
