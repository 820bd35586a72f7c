/// The stand-in's knobs and gauges on `/auth/token`, `/auth/revoke` and `/auth/usermigrationinfo`, for tests,
/// benchmarks and operators (`/dev/faults`): a latency added to every answer, a failure answered instead of the
/// work, how many calls are in flight (and the most at once), and how many refresh-token grants it served.
actor FakeAppleTokenKnobs {
    /// Seconds added before each answer.
    private(set) var latency: Double = 0
    /// Answered instead of the endpoint's work, after the latency: 429 or a 5xx, with `Retry-After` when given.
    private(set) var failure: (status: Int, retryAfter: Int?)?
    private(set) var inFlight = 0
    private(set) var peakInFlight = 0
    /// `grant_type=refresh_token` calls answered, whatever the answer.
    private(set) var refreshCalls = 0

    func setLatency(_ seconds: Double) { latency = max(seconds, 0) }

    /// Answers `failure` instead of the work from now on; nil ends it.
    func setFailure(_ failure: (status: Int, retryAfter: Int?)?) { self.failure = failure }

    /// What `/dev/faults` shows.
    var faults: FakeAppleController.Faults {
        FakeAppleController.Faults(latency: latency, status: failure?.status, retryAfter: failure?.retryAfter)
    }

    /// Applies what `/dev/faults` was posted, and returns the faults now set; nil, and nothing applied, for a
    /// `retryAfter` with no failing status, posted or set, which would be dropped unsaid (found by a re-review).
    func set(_ form: FakeAppleController.FaultsForm) -> FakeAppleController.Faults? {
        if form.retryAfter != nil, [nil, 0, 200].contains(form.status ?? failure?.status) { return nil }
        if let latency = form.latency { setLatency(latency) }
        switch form.status {
        case nil: if let retryAfter = form.retryAfter, let status = failure?.status { failure = (status, retryAfter) }
        case 0?, 200?: failure = nil
        case let status?: failure = (status, form.retryAfter)
        }
        return faults
    }

    /// A call arrives: counts it in flight and returns the latency to add and the failure to answer, if any.
    func begin() -> (latency: Double, failure: (status: Int, retryAfter: Int?)?) {
        inFlight += 1
        peakInFlight = max(peakInFlight, inFlight)
        return (latency, failure)
    }

    func end() { inFlight -= 1 }

    func countRefresh() { refreshCalls += 1 }

    /// Forgets the peak (the next one starts from the calls in flight now).
    func resetPeak() { peakInFlight = inFlight }
}
