import Synchronization

/// Request ids for log correlation: a random 32-bit prefix drawn once per application, then a counter, as 16 hex
/// digits. Unique within a run and across restarts in practice, with no system call per request (the ids are
/// not secrets: they are echoed in `X-Request-Id`).
final class RequestIDGenerator: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt32>(0)

    init() {
        prefix = UInt64(UInt32.random(in: .min ... .max)) << 32
    }

    func next() -> String {
        let value = prefix | UInt64(counter.wrappingAdd(1, ordering: .relaxed).newValue)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
