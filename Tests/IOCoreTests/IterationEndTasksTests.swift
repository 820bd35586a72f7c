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
}
