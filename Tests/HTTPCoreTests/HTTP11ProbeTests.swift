import TestSupport
import Foundation
import Testing
@testable import HTTPCore

/// Http11Probe's smuggling, request-line, headers, content-length, body, malformed-input, line-endings and
/// host-header probes against a live server; each must end in an outcome the probe grades "pass".
@Suite(.timeLimit(.minutes(2)), .vectors("http11probe/docs"))
struct HTTP11ProbeTests {
    static let probes: [HTTP11Probe] = {
        guard let docs = TestVectors.folder("http11probe/docs", report: false) else { return [] }
        return (try? HTTP11Probe.load(from: docs)) ?? []
    }()

    static let limits = HTTPLimits(headerTimeout: .milliseconds(300 * Sanitizer.timeScale),
                                   idleTimeout: .milliseconds(300 * Sanitizer.timeScale),
                                   bodyReadTimeout: .milliseconds(300 * Sanitizer.timeScale))

    @Test func probesWereFound() {
        guard TestVectors.folder("http11probe/docs") != nil else { return }
        #expect(Self.probes.count > 100)
    }

    /// Probes whose grade is a choice we make on purpose, each with the reason.
    static let deliberate: [String: String] = [
        "COMP-405-ALLOW": "routing: the application's router answers 405 with Allow",
        "COMP-METHOD-TRACE": "routing: unknown routes and methods are the application's 404/405",
        "COMP-TRACE-WITH-BODY": "routing: as above",
        "COMP-UNKNOWN-METHOD": "any token is a method (RFC 9110 §9.1); the router answers 405",
        "COMP-NO-CL-IN-204": "needs a route answering 204 (covered by HTTPServerTests.noContentHasNoLength)",
        "COMP-GET-WITH-CL-BODY": "a GET body is read and framed correctly (RFC 9110 §9.3.1 allows it); graded warn",
        "MAL-CL-TAB-BEFORE-VALUE": "OWS includes HTAB (RFC 9110 §5.6.3), so the field is valid; graded warn",
        "MAL-POST-CL-HUGE-NO-BODY": "413 decided from Content-Length before the body, as the project requires",
        "MAL-URL-PERCENT-CRLF": "percent-encoded octets are valid URI syntax (RFC 3986 §2.1); the application decodes",
        "MAL-URL-PERCENT-NULL": "as above",
        "COMP-HTTP10-NO-HOST": "Host is required of HTTP/1.1 requests only (RFC 9112 §3.2); graded warn",
    ]

    @Test func everyProbePasses() async throws {
        try await withServer(limits: Self.limits) { _, port in
            var failures: [String] = []
            for probe in Self.probes where Self.deliberate[probe.id] == nil {
                let client = try RawClient(port: port, timeoutMilliseconds: 3000 * Sanitizer.timeScale)
                try? client.send(probe.request)
                let isHead = probe.request.starts(with: Array("HEAD ".utf8))
                var statuses: [Int] = []
                let wanted = probe.steps > 1 ? probe.steps + 1 : 1
                while statuses.count < wanted, let response = try? await client.readResponse(head: isHead) {
                    statuses.append(response.status)
                }
                if probe.steps > 1 {
                    if statuses.count > probe.steps || (statuses.first.map { !probe.passes(status: $0) && $0 >= 300 } ?? false) {
                        failures.append("\(probe.id): desync or bad status \(statuses) for \(probe.steps) steps")
                    }
                } else if !probe.passes(status: statuses.first) {
                    failures.append("\(probe.id): got \(statuses.first.map(String.init) ?? "close"), expected \(probe.expectedText)")
                }
            }
            #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        }
    }
}
