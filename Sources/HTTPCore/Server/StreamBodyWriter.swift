import Synchronization

/// Hands a `.stream` body's chunks to its connection; each `write` returns once the socket took the bytes.
///
/// Valid only while the stream closure runs; writes must not overlap (both are checked and refused).
struct StreamBodyWriter: HTTPBodyWriter {
    struct WriterError: Error, Equatable {
        enum Reason: Equatable { case finished, concurrentWrite, connectionClosed }
        var reason: Reason
    }

    private let connection: ConnectionReference
    private let chunked: Bool
    private let state: SharedState

    final class SharedState: Sendable {
        let finished = Atomic<Bool>(false)
        let busy = Atomic<Bool>(false)
    }

    init(connection: Connection, chunked: Bool) {
        self.connection = ConnectionReference(connection)
        self.chunked = chunked
        state = SharedState()
    }

    func finish() { state.finished.store(true, ordering: .sequentiallyConsistent) }

    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        guard !state.finished.load(ordering: .sequentiallyConsistent) else { throw WriterError(reason: .finished) }
        guard state.busy.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { throw WriterError(reason: .concurrentWrite) }
        defer { state.busy.store(false, ordering: .sequentiallyConsistent) }
        let connection = connection.value
        if chunked {
            connection.output.append(contentsOf: String(bytes.count, radix: 16).utf8)
            connection.output.append(contentsOf: Connection.crlf)
            connection.output.append(contentsOf: bytes)
            connection.output.append(contentsOf: Connection.crlf)
        } else {
            connection.output.append(contentsOf: bytes)
        }
        guard await connection.flush() else { throw WriterError(reason: .connectionClosed) }
    }
}

/// Lets the stream writer reach its connection. The connection is confined to its task; the writer is used
/// only while that task awaits the stream closure, and `StreamBodyWriter` refuses overlapping or late writes.
struct ConnectionReference: @unchecked Sendable {
    let value: Connection
    init(_ value: Connection) { self.value = value }
}
