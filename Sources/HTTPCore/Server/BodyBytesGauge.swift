import Synchronization

/// Bytes that request bodies still being read hold across a server's connections: what each fixed-length body
/// reserved for its `Content-Length`, and what each chunked body has received so far. A body leaves the gauge when
/// its request is handed to the responder or when its connection is cut (timeout, error, close), so the gauge
/// shows that memory held by bodies in flight is bounded (each by `maxBodySize`) and given back.
final class BodyBytesGauge: Sendable {
    private let bytes = Atomic<Int>(0)

    /// The bytes held now.
    var value: Int { bytes.load(ordering: .relaxed) }

    /// Records that one body's holding changed from `old` to `new` bytes.
    func change(from old: Int, to new: Int) {
        guard old != new else { return }
        bytes.wrappingAdd(new - old, ordering: .relaxed)
    }
}
