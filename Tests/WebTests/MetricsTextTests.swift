import Testing
@testable import Web

/// The Prometheus text exposition format 0.0.4: HELP/TYPE lines, escaping, histogram series.
struct MetricsTextTests {
    @Test func familyHasHelpAndTypeLinesAndSamples() {
        var page = MetricsText()
        page.family("jobs_total", .counter, help: "Jobs done.")
        page.sample("jobs_total", [("kind", "a")], 3)
        page.sample("jobs_total", [], 7)
        #expect(page.text == "# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total{kind=\"a\"} 3\njobs_total 7\n")
    }

    @Test func labelValuesEscapeBackslashQuoteAndNewline() {
        var page = MetricsText()
        page.sample("x", [("path", "a\\b\"c\nd"), ("plain", "é/ok")], 1)
        #expect(page.text == "x{path=\"a\\\\b\\\"c\\nd\",plain=\"é/ok\"} 1\n")
    }

    @Test func helpEscapesBackslashAndNewlineButNotQuotes() {
        #expect(MetricsText.escapeHelp("a\\b\n\"c\"") == "a\\\\b\\n\"c\"")
    }

    @Test func histogramBucketsAreCumulativeWithInfSumAndCount() {
        var page = MetricsText()
        page.histogram("d", [("route", "/r")], bounds: [0.001, 0.5, 2], bucketCounts: [2, 0, 3, 1], sum: 4.25)
        #expect(page.text.split(separator: "\n") == [
            "d_bucket{route=\"/r\",le=\"0.001\"} 2",
            "d_bucket{route=\"/r\",le=\"0.5\"} 2",
            "d_bucket{route=\"/r\",le=\"2\"} 5",
            "d_bucket{route=\"/r\",le=\"+Inf\"} 6",
            "d_sum{route=\"/r\"} 4.25",
            "d_count{route=\"/r\"} 6",
        ])
    }

    @Test(arguments: [
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"), (5, "5"), (0.0005, "0.0005"),
        (2.5, "2.5"),
    ])
    func numbersAreSpelledAsTheFormatWants(_ value: Double, _ text: String) {
        #expect(MetricsText.format(value) == text)
    }

    @Test func contentTypeIsVersion004() {
        #expect(MetricsText.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }
}
