import Foundation
import HTTPCore
import Web

/// `GET` and `POST /dev/faults`: Apple slow, throttling or failing, on demand, so that an operator can rehearse
/// what the server does then with the stand-in alone (a sign-in's 503 and `Retry-After`, the chores waiting
/// Apple out). Not an Apple endpoint. What a `POST` sets applies to `/auth/token`, `/auth/revoke` and
/// `/auth/usermigrationinfo` until it is set again; `/auth/keys` is never affected.
extension FakeAppleController {
    /// The faults as set: `latency` seconds before each answer, and `status` (429 or 5xx, with `Retry-After:
    /// retryAfter` seconds when given) answered instead of the endpoint's work; no `status`: none.
    struct Faults: Codable, Sendable, Equatable {
        var latency: Double
        var status: Int?
        var retryAfter: Int?
    }

    /// The form of `POST /dev/faults`, JSON or form-encoded: each field given replaces the one set; `status` 0 or
    /// 200 ends the failure (and its `retryAfter`).
    struct FaultsForm: Codable, Sendable {
        var latency: Double?
        var status: Int?
        var retryAfter: Int?
    }

    /// The longest latency `/dev/faults` takes (seconds): as long as `APPLE_TIMEOUT` may be, so a hanging Apple can be
    /// played.
    static let maximumFaultLatency: Double = 300
    /// The longest `retryAfter` `/dev/faults` takes (seconds): a day.
    static let maximumFaultRetryAfter = 86_400

    @Sendable func faults(_ req: Request) async throws -> Response {
        try Response.json(await knobs.faults)
    }

    @Sendable func setFaults(_ req: Request) async throws -> Response {
        let form = try req.content.decode(FaultsForm.self)
        if let latency = form.latency, !(0...Self.maximumFaultLatency).contains(latency) {
            throw Abort(.badRequest, reason: "latency must be seconds from 0 to \(Int(Self.maximumFaultLatency)).")
        }
        if let status = form.status, status != 0, status != 200, status != 429, !(500...599).contains(status) {
            throw Abort(.badRequest, reason: "status must be 429 or 500 to 599 (0 or 200 ends the failure).")
        }
        if let retryAfter = form.retryAfter, !(0...Self.maximumFaultRetryAfter).contains(retryAfter) {
            throw Abort(.badRequest, reason: "retryAfter must be seconds from 0 to \(Self.maximumFaultRetryAfter).")
        }
        guard let faults = await knobs.set(form) else {
            throw Abort(.badRequest, reason: "retryAfter goes with a failing status (429 or 500 to 599).")
        }
        return try Response.json(faults)
    }

    /// The failure set with `/dev/faults`, as Apple would send it: the status, `Retry-After` when given, no body.
    static func failure(status: Int, retryAfter: Int?) -> Response {
        var response = Response(status: HTTPStatus(code: status))
        if let retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: "\(retryAfter)") }
        return response
    }
}
