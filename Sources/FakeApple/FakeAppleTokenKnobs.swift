/// The stand-in's knobs and gauges on `/auth/token` and `/auth/revoke`, for tests and benchmarks of Apple's chores: a
/// latency added to every answer, how many calls are in flight (and the most at once), and how many refresh-token
/// grants it served.
actor FakeAppleTokenKnobs {
    /// Seconds added before each `/auth/token` answer.
    private(set) var latency: Double = 0
    private(set) var inFlight = 0
    private(set) var peakInFlight = 0
    /// `grant_type=refresh_token` calls answered, whatever the answer.
    private(set) var refreshCalls = 0

    func setLatency(_ seconds: Double) { latency = max(seconds, 0) }

    /// A call arrives: counts it in flight and returns the latency to add.
    func begin() -> Double {
        inFlight += 1
        peakInFlight = max(peakInFlight, inFlight)
        return latency
    }

    func end() { inFlight -= 1 }

    func countRefresh() { refreshCalls += 1 }

    /// Forgets the peak (the next one starts from the calls in flight now).
    func resetPeak() { peakInFlight = inFlight }
}
