extension Application {
    /// Whether every request is counted in `requestMetrics` (off by default; configure before serving).
    package var collectsMetrics: Bool {
        get { state.withLock { $0.collectsMetrics } }
        set { configure { $0.collectsMetrics = newValue } }
    }

    /// The request counters built by `boot()` from the route table; nil before boot or when not collecting.
    package var requestMetrics: RequestMetrics? {
        state.withLock { $0.frozen?.context.metrics }
    }
}

extension Request {
    /// The application's request counters, when it collects them; what a metrics route renders.
    package var requestMetrics: RequestMetrics? { context.metrics }
}
