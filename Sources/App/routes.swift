import Web

/// Registers every route and the middleware around them.
///
/// API routes answer JSON errors; web routes run with sessions and HTML error pages.
func routes(_ app: Application, services: Services) throws {
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(DatabaseUnavailableMiddleware(busyTimeoutMilliseconds: services.configuration.databaseBusyTimeoutMilliseconds))
    app.middleware.use(try FileMiddleware(publicDirectory: services.configuration.resourcesPath + "/Public"))

    try app.register(collection: HealthController())
    try app.register(collection: UsersController(services: services))
    try app.register(collection: AppleNotificationsController(services: services))
    if let token = services.configuration.metricsToken {
        try app.register(collection: MetricsController(services: services, token: token))
    }

    let web = app.grouped(HTMLErrorPagesMiddleware(), SessionsMiddleware(store: services.sessions))
    try web.register(collection: HomeController(services: services))
    try web.register(collection: WebAuthController(services: services))
    try web.register(collection: AccountController(services: services))
}
