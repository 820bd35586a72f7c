import IOCore
import Logging
import Storage
import Synchronization
import Web

/// `GET /ready`, what a load balancer polls: 200 `{"status":"ok"}` while the database answers and would take writes
/// (`DatabaseClient.takesWrites()`, found out without writing: on SQLite, its files are those opened and a reader
/// answers; a write lock another process holds, which a sign-in waits out or answers 503 to, is not looked for),
/// 503 `{"status":"unavailable"}` with `Retry-After` when it does not, or once
/// shutdown has begun (so the balancer takes this instance out before its listener closes). `GET /health` stays 200
/// while the process runs.
struct ReadinessController: RouteCollection {
    let database: any DatabaseClient
    let readiness: Readiness

    /// `Retry-After` of a 503 from `/ready`.
    static let retryAfterSeconds = 5
    /// How long `/ready` waits for the database's answer before it answers 503: a database that does not answer
    /// (a frozen primary, a partition) holds a statement for `PostgresPool.statementTimeout`, and a balancer polls
    /// with a short timeout of its own (Kubernetes' default is 1 s, an AWS target group's 5 s).
    static let databaseTimeout: Duration = .seconds(2)

    struct Status: Content { var status: String }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("ready", use: ready)
    }

    @Sendable func ready(_ req: Request) async throws -> Response {
        let database = database
        if !readiness.isDraining {
            let answer = await EventLoop.answer(within: Self.databaseTimeout) { await database.takesWrites() }
            let ready = readiness.note(databaseAnswer: answer, lastingProblem: { database.lastingProblem },
                                       logger: req.logger)
            if ready { return try Status(status: "ok").encodeResponse(for: req) }
        }
        var response = try Status(status: "unavailable").encodeResponse(for: req)
        response.status = .serviceUnavailable
        response.headers.replaceOrAdd(name: "Retry-After", value: "\(Self.retryAfterSeconds)")
        return response
    }
}

/// Whether this instance has begun shutting down; `GET /ready` answers 503 from then on. It also remembers whether
/// the database last answered `/ready`, so that a change is logged once: a balancer that polls only `/ready` took the
/// instance out with nothing in the log saying why (found by a black-box review).
final class Readiness: Sendable {
    private let draining = Atomic<Bool>(false)
    private let databaseWasReady = Mutex<Bool>(true)

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Logs when the database's answer to `/ready` changes, and returns whether `/ready` answers 200: `answer` true
    /// (ready), false (it takes no writes or does not answer), nil (no answer within
    /// `ReadinessController.databaseTimeout`). `lastingProblem` (`DatabaseClient.lastingProblem`) is read under the
    /// same lock as the change: a check that answered true while a concurrent one found a lasting problem answers
    /// 503 and logs nothing (found by CI: six `/ready` at once logged "answers again" right after "503 from now on").
    func note(databaseAnswer answer: Bool?, lastingProblem: () -> String? = { nil }, logger: Logger) -> Bool {
        databaseWasReady.withLock { wasReady in
            let problem = lastingProblem()
            let ready = answer == true && problem == nil
            guard wasReady != ready else { return ready }
            wasReady = ready
            if ready {
                logger.notice("/ready: the database answers again; 200 from now on")
            } else {
                let why = problem ?? (answer == nil
                    ? "the database did not answer within \(ReadinessController.databaseTimeout)"
                    : "the database does not answer or takes no writes (requests that need it log the cause)")
                logger.warning("/ready: 503 from now on: \(why)")
            }
            return ready
        }
    }

    /// Called first thing on SIGTERM (`SiwaServer.shutdown`).
    func beginDraining() { draining.store(true, ordering: .relaxed) }
}
