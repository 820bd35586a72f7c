import AppleID
import Foundation
import HTTPCore
import Logging
import Storage

/// The application's long-lived parts, built once at start: the repositories and the feature services the
/// controllers receive (sign-in, accounts, Apple's token lifecycle), wired to one database, one key set and one
/// HTTP client.
final class Services: Sendable {
    let configuration: Configuration
    let database: any DatabaseClient
    let users: UserRepository
    let tokens: TokenRepository
    let sessions: DatabaseSessionStore
    let notifications: AppleNotificationRepository
    let usedNonces: UsedNonceRepository
    let appleKeys: AppleKeySet
    let lifecycle: AppleTokenLifecycle
    let signIn: SignInService
    let accounts: AccountService
    let logger: Logger
    let clock: @Sendable () -> Date
    /// What `GET /metrics` reports beyond the request counters.
    /// The one client every call to Apple goes through, keys included, with or without the Apple key.
    let appleHTTP: HTTPClient
    let metrics = AppMetrics()
    /// Whether shutdown has begun (`GET /ready`).
    let readiness = Readiness()

    init(configuration: Configuration, database: any DatabaseClient, appleKeys: AppleKeySet, http: HTTPClient,
         logger: Logger, clock: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.database = database
        self.appleKeys = appleKeys
        appleHTTP = http
        self.logger = logger
        self.clock = clock
        users = UserRepository(pool: database, now: clock)
        tokens = TokenRepository(pool: database, now: clock)
        sessions = DatabaseSessionStore(pool: database, now: clock)
        notifications = AppleNotificationRepository(pool: database, now: clock)
        usedNonces = UsedNonceRepository(pool: database, now: clock)
        lifecycle = AppleTokenLifecycle(
            configuration: configuration, appleTokens: AppleTokenRepository(pool: database),
            pending: PendingRevocationRepository(pool: database), keys: appleKeys, http: http, logger: logger,
            clock: clock
        )
        signIn = SignInService(configuration: configuration, users: users, lifecycle: lifecycle, usedNonces: usedNonces,
                               appleKeys: appleKeys, metrics: metrics, clock: clock)
        accounts = AccountService(users: users, lifecycle: lifecycle)
    }
}

/// A bearer token just issued: its record and the only copy of its value.
struct IssuedBearerToken: Sendable {
    var token: BearerToken
    var value: String
    var user: User
}
