import Glibc
import Logging
import Synchronization
import Testing
@testable import HTTPCore

struct EventLoopHooksTests {
    /// What the hooks and the responder saw, by thread.
    final class Record: Sendable {
        let startedThreads = Mutex<[pthread_t]>([])
        let responderThread = Mutex<pthread_t?>(nil)
        /// Iterations that ended on the responder's thread after it had answered.
        let iterationsAfterAnswer = Atomic<Int>(0)
    }

    struct Hooks: EventLoopHooks {
        let record: Record

        func loopThreadStarted() {
            record.startedThreads.withLock { $0.append(pthread_self()) }
        }

        func loopIterationEnded() {
            guard let thread = record.responderThread.withLock({ $0 }), pthread_equal(thread, pthread_self()) != 0
            else { return }
            record.iterationsAfterAnswer.add(1, ordering: .relaxed)
        }
    }

    struct RecordingResponder: HTTPResponder {
        let record: Record

        func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
            record.responderThread.withLock { $0 = pthread_self() }
            return await EchoResponder().respond(to: request, connection: connection)
        }
    }

    @Test func hooksRunOnEveryLoopThreadAndAfterTheIterationThatAnswered() async throws {
        let record = Record()
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let server = HTTPServer(configuration: .init(port: 0, loopCount: 2), responder: RecordingResponder(record: record),
                                logger: logger, loopHooks: Hooks(record: record))
        try server.start()
        let client = try RawClient(port: server.localPort)
        try client.send("GET /hooked HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        let deadline = ContinuousClock.now + .seconds(5)
        while record.iterationsAfterAnswer.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        await server.shutdown()
        let started = record.startedThreads.withLock { $0 }
        #expect(started.count == 2)
        if started.count == 2 { #expect(pthread_equal(started[0], started[1]) == 0) }
        let responder = try #require(record.responderThread.withLock { $0 })
        #expect(started.contains { pthread_equal($0, responder) != 0 })
        #expect(record.iterationsAfterAnswer.load(ordering: .relaxed) > 0)
    }
}
