import Web

/// Registers every route and the middleware around them.
///
/// API routes answer JSON errors; web routes run with sessions and HTML error pages.
func routes(_ app: Application, services: Services) throws {
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(DatabaseUnavailableMiddleware())
    app.middleware.use(try FileMiddleware(publicDirectory: services.configuration.resourcesPath + "/Public"))
    // Below /api and on the other JSON routes every error is JSON whatever Accept prefers, the 404s and 405s of
    // paths no route has included (`/metrics` is a 404 when METRICS_TOKEN is not set).
    app.jsonErrorPaths = ["/api", "/login/siwa/popup", "/metrics", "/health", "/ready"]
    // A 401 carries a challenge (RFC 9110 §15.5.2): the bearer routes name theirs; a refused identity token, a
    // notification's payload or a web sign-in's state get this server's, whose bearer token the sign-in issues.
    app.unauthorizedChallenge = BearerAuthenticator.challenge

    // In front of the sign-in routes, the API's and the web flow's: one per-address rate limit (or none when off).
    let signInLimit = SignInRateLimit.middleware(services.configuration)

    try app.register(collection: HealthController())
    try app.register(collection: OpenAPIController(resourcesPath: services.configuration.resourcesPath))
    try app.register(collection: ReadinessController(database: services.database, readiness: services.readiness))
    try app.register(collection: UsersController(signIns: services.signIn, accounts: services.accounts,
                                                 tokens: services.tokens, signInLimit: signInLimit))
    try app.register(collection: AppleNotificationsController(services: services))
    if let token = services.configuration.metricsToken {
        try app.register(collection: MetricsController(services: services, token: token))
    }

    // Errors of the HTML routes are JSON like the API's (`{"error": true, "reason": …}`, README "The web flow"), and an
    // HTML page when the client asks for HTML first (a browser's Accept), as `ErrorMiddleware` decides.
    let web = app.grouped(SessionsMiddleware(store: services.sessions))
    try web.register(collection: HomeController(accounts: services.accounts))
    try web.register(collection: WebAuthController(accounts: services.accounts, configuration: services.configuration))
    try web.register(collection: AccountController(accounts: services.accounts))
    // The steps back from Apple only start sessions: the browser's old one is not read, and the sign-in's own
    // write replaces it, so a web sign-in is one read and one write transaction.
    let signInSteps = app.grouped(SessionsMiddleware(store: services.sessions, loadsSessions: false))
    try signInSteps.register(collection: WebSignInController(signIns: services.signIn, configuration: services.configuration,
                                                             signInLimit: signInLimit))
}
