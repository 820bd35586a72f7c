import Synchronization
@testable import HTTPCore

/// Lets a test wait until a handler has started (instead of sleeping and hoping).
final class Arrival: Sendable {
    private let state = Mutex<(arrived: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func signal() {
        let waiters = state.withLock { state in
            state.arrived = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state in
                if !state.arrived { state.waiters.append(continuation) }
                return state.arrived
            }
            if arrived { continuation.resume() }
        }
    }
}

/// Answers `/slow` after 300 ms, or once `release` is signalled when given, signalling `arrival` when the handler
/// starts; everything else like `EchoResponder`.
struct SlowResponder: HTTPResponder {
    let arrival: Arrival
    var release: Arrival?

    func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        if request.path == "/slow" {
            arrival.signal()
            if let release {
                await release.wait()
                return HTTPResponse(string: "slow done")
            }
        }
        return await EchoResponder().respond(to: request, connection: connection)
    }
}
