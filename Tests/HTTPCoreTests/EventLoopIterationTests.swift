import IOCore
import Glibc
import Logging
import Synchronization
import Testing
@testable import HTTPCore

struct EventLoopIterationTests {
    /// What the responder and the tasks it deferred saw.
    final class Record: Sendable {
        let responderThread = Mutex<pthread_t?>(nil)
        let taskThreads = Mutex<[pthread_t]>([])
        /// Whether the responder had returned when the task ran.
        let answeredBeforeTask = Mutex<[Bool]>([])
        let answered = Atomic<Bool>(false)
    }

    struct DeferringResponder: HTTPResponder {
        let record: Record

        func respond(to request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
            record.responderThread.withLock { $0 = pthread_self() }
            let key = ObjectIdentifier(record)
            for _ in 0..<3 {
                let added = EventLoopIteration.runAtEnd(key: key) { [record] in
                    record.taskThreads.withLock { $0.append(pthread_self()) }
                    record.answeredBeforeTask.withLock { $0.append(record.answered.load(ordering: .relaxed)) }
                }
                #expect(added)
            }
            record.answered.store(true, ordering: .relaxed)
            return await EchoResponder().respond(to: request, connection: connection)
        }
    }

    @Test func aTaskAddedOnALoopRunsOnceOnItsThreadAfterTheIterationsJobs() async throws {
        let record = Record()
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let server = HTTPServer(configuration: .init(port: 0, loopCount: 2), responder: DeferringResponder(record: record),
                                logger: logger)
        try server.start()
        let client = try RawClient(port: server.localPort)
        try client.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        let deadline = ContinuousClock.now + .seconds(5)
        while record.taskThreads.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        await server.shutdown()
        let responder = try #require(record.responderThread.withLock { $0 })
        let answered = record.answeredBeforeTask.withLock { $0 }
        let threads = record.taskThreads.withLock { $0 }
        #expect(threads.count == 1)
        #expect(threads.allSatisfy { pthread_equal($0, responder) != 0 })
        #expect(answered == [true])
    }

    @Test func offALoopThreadNothingIsAdded() {
        let record = Record()
        let added = EventLoopIteration.runAtEnd(key: ObjectIdentifier(record)) {
            record.answered.store(true, ordering: .relaxed)
        }
        let ran = record.answered.load(ordering: .relaxed)
        #expect(!added)
        #expect(!ran)
    }
}
