import Synchronization
import Testing
@testable import IOCore

struct IterationEndTasksTests {
    @Test func tasksAddedByTasksRunInTheSameIteration() {
        let tasks = IterationEndTasks()
        let order = Mutex<[String]>([])
        final class Keys: Sendable {}
        let first = Keys(), second = Keys()
        tasks.attachToThread()
        defer { tasks.detachFromThread() }
        #expect(EventLoopIteration.runAtEnd(key: ObjectIdentifier(first)) {
            order.withLock { $0.append("first") }
            _ = EventLoopIteration.runAtEnd(key: ObjectIdentifier(second)) { order.withLock { $0.append("second") } }
        })
        tasks.run()
        #expect(order.withLock { $0 } == ["first", "second"])
        #expect(tasks.isEmpty)
    }

    @Test func idleTasksRunOnceByKeyWithTheEndTasksTheyAdd() {
        let tasks = IterationEndTasks()
        let order = Mutex<[String]>([])
        final class Keys: Sendable {}
        let idle = Keys(), end = Keys()
        tasks.attachToThread()
        defer { tasks.detachFromThread() }
        for name in ["idle", "again"] {
            #expect(EventLoopIteration.runWhenIdle(key: ObjectIdentifier(idle), atTheLatestAfter: .seconds(1)) {
                order.withLock { $0.append(name) }
                _ = EventLoopIteration.runAtEnd(key: ObjectIdentifier(end)) { order.withLock { $0.append("end") } }
            })
        }
        #expect(tasks.hasIdleTasks && tasks.idleDeadline < .max)
        tasks.run()
        #expect(order.withLock { $0 }.isEmpty)  // the end of an iteration is not idleness
        tasks.runIdle()
        #expect(order.withLock { $0 } == ["idle", "end"])
        #expect(!tasks.hasIdleTasks && tasks.idleDeadline == .max && tasks.isEmpty)
    }

    @Test func offALoopThreadNothingWaitsForIdleness() {
        #expect(!EventLoopIteration.runWhenIdle(key: ObjectIdentifier(IterationEndTasks()), atTheLatestAfter: .zero) {})
    }
}
