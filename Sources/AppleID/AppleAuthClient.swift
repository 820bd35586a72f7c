import Foundation
import HTTPCore
import IOCore
import JSON
import Logging

/// Apple's token endpoints (Sign in with Apple REST API): `POST /auth/token` to exchange an authorization code
/// or validate a refresh token, `POST /auth/revoke` to revoke one, and `POST /auth/usermigrationinfo` for an app
/// transfer (`AppleAuthClient+Migration.swift`). Requests are form-encoded and carry the
/// client id and its client secret; errors come back as `{"error": "..."}`.
package struct AppleAuthClient: Sendable {
    package let baseURL: String
    let clientSecret: ClientSecret
    package let http: HTTPClient
    /// Calls so far, by endpoint and outcome.
    package let calls = AppleAuthCallCounters()
    /// `baseURL` joined with each endpoint's path, once.
    private let tokenURL: String, revokeURL: String, migrationURL: String

    /// - Parameters:
    ///   - baseURL: `APPLE_BASE_URL`, e.g. `https://appleid.apple.com`.
    ///   - clientSecret: mints the `client_secret` per client id.
    ///   - http: the HTTPS client.
    package init(baseURL: String, clientSecret: ClientSecret, http: HTTPClient = HTTPClient()) {
        self.baseURL = baseURL
        (tokenURL, revokeURL, migrationURL) = (baseURL + "/auth/token", baseURL + "/auth/revoke",
                                               baseURL + "/auth/usermigrationinfo")
        self.clientSecret = clientSecret
        self.http = http
    }

    /// The longest `expires_in` taken as said, in seconds (some 31 years); Apple's access tokens live an hour.
    package static let expiresInLimit = 1_000_000_000

    /// An answer's `expires_in` (RFC 6749 §5.1, seconds), or 0, "not said", when it is missing, not a whole number,
    /// negative or beyond `expiresInLimit`. Whatever Apple's side sends, converting it can never end the process
    /// (found by a review: `Int(1e300)` traps).
    package static func expiresIn(_ value: JSONValue?) -> Int {
        guard let number = value?.numberValue, number >= 0, number <= Double(expiresInLimit),
              let seconds = Int(exactly: number)
        else { return 0 }
        return seconds
    }

    /// What `/auth/token` answers.
    package struct TokenResponse: Sendable, Equatable {
        package var accessToken: String
        package var tokenType: String
        package var expiresIn: Int
        /// Present for the authorization-code grant only.
        package var refreshToken: String?
        package var idToken: String
    }

    /// Exchanges an authorization code (valid for five minutes, single use).
    /// - Parameters:
    ///   - code: the code from the app or the web callback.
    ///   - clientID: the client the code was issued to: the bundle id (app) or the Services ID (web).
    ///   - redirectURI: the web flow's redirect URI; nil for codes from the app.
    package func exchange(code: String, clientID: String, redirectURI: String?) async throws -> TokenResponse {
        var form = [("client_id", clientID), ("client_secret", try clientSecret.secret(for: clientID)),
                    ("code", code), ("grant_type", "authorization_code")]
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        return try decodeTokenResponse(try await post(.token, form))
    }

    /// Validates a refresh token (`grant_type=refresh_token`); Apple answers `invalid_grant` once it is revoked.
    package func refresh(refreshToken: String, clientID: String) async throws -> TokenResponse {
        let form = [("client_id", clientID), ("client_secret", try clientSecret.secret(for: clientID)),
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        return try decodeTokenResponse(try await post(.token, form))
    }

    /// Revokes a refresh (or access) token.
    package func revoke(token: String, clientID: String, tokenTypeHint: String = "refresh_token") async throws {
        let form = [("client_id", clientID), ("client_secret", try clientSecret.secret(for: clientID)),
                    ("token", token), ("token_type_hint", tokenTypeHint)]
        _ = try await post(.revoke, form)
        calls.record(.revoke, .ok)
    }

    /// Posts `form` to `endpoint` with `bearer` (an access token) in `Authorization` when given; returns a 200
    /// answer, or counts the failure in `calls` and throws it.
    func post(_ endpoint: AppleAuthCallCounters.Endpoint, _ form: [(String, String)], bearer: String? = nil)
        async throws -> HTTPClientResponse
    {
        var path: String { "/auth/\(endpoint.rawValue)" }  // made only for an error's detail
        let started = MonotonicClock.now()
        defer { calls.recordDuration(endpoint, nanoseconds: Int(clamping: MonotonicClock.now() - started)) }
        var headers = Self.formHeaders
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let response: HTTPClientResponse
        do {
            let url = switch endpoint {
            case .token: tokenURL
            case .revoke: revokeURL
            case .usermigrationinfo: migrationURL
            }
            response = try await http.send(HTTPClientRequest(
                method: .POST, url: url, headers: headers, body: FormEncoding.encode(form)
            ))
        } catch {
            let kind = (error as? HTTPClientError)?.kind
            // This server's shutdown ended the call: not Apple's doing, so not counted as a failed call to Apple.
            if kind == .loopStopped { throw AppleAuthError(.interrupted, detail: path) }
            let timedOut = kind == .readTimeout || kind == .poolTimeout || kind == .connectTimeout
            calls.record(endpoint, timedOut ? .timeout : .networkError)
            // These come once a connection carried the request (the client sends nothing again after that).
            let sent = kind == .readTimeout || kind == .connectionClosed || kind == .responseTooLarge
                || kind == .malformedResponse
            throw AppleAuthError(.unreachable, detail: "\(path): \(error)", mayHaveReachedApple: sent)
        }
        if response.status.code == 200 { return response }
        let retryAfter = response.headers["Retry-After"].flatMap(Self.retryAfterSeconds)
        if response.status.code == 429 {
            calls.record(endpoint, .throttled)
            throw AppleAuthError(.throttled, detail: "\(path) answered 429", retryAfterSeconds: retryAfter)
        }
        let code = (try? JSONValue(parsing: response.body))?["error"]?.stringValue.map(AppleAuthError.loggableCode)
        if let code, response.status.code < 500 {
            if code == "invalid_client", let clientID = form.first(where: { $0.0 == "client_id" })?.1 {
                clientSecret.discard(for: clientID)
            }
            calls.record(endpoint, .init(appleErrorCode: code))
            throw AppleAuthError(.apple(code), detail: "\(path) answered \(response.status.code)")
        }
        if response.status.code >= 500 {
            calls.record(endpoint, .serverError)
            throw AppleAuthError(.unreachable, detail: "\(path) answered \(response.status.code)",
                                 retryAfterSeconds: retryAfter, status: response.status.code)
        }
        calls.record(endpoint, .malformedResponse)
        throw AppleAuthError(.malformedResponse, detail: "\(path) answered \(response.status.code) without an error code")
    }

    /// The fields of every form posted to Apple.
    private static let formHeaders: HTTPHeaders = [
        "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
    ]

    /// Reads the answer's members in order rather than building a dictionary of them: there are five, read once.
    private func decodeTokenResponse(_ response: HTTPClientResponse) throws -> TokenResponse {
        let members = (try? JSONValue.parseObjectMembers(response.body)) ?? []
        func member(_ name: String) -> JSONValue? { members.first { $0.name == name }?.value }
        guard let accessToken = member("access_token")?.stringValue, let idToken = member("id_token")?.stringValue
        else {
            calls.record(.token, .malformedResponse)
            throw AppleAuthError(.malformedResponse, detail: "/auth/token answer lacks access_token or id_token",
                                 mayHaveReachedApple: true)
        }
        calls.record(.token, .ok)
        return TokenResponse(
            accessToken: accessToken, tokenType: member("token_type")?.stringValue ?? "Bearer",
            expiresIn: Self.expiresIn(member("expires_in")), refreshToken: member("refresh_token")?.stringValue,
            idToken: idToken
        )
    }
}

extension AppleAuthClient {
    /// The longest wait taken from a `Retry-After`: a longer one is capped, not obeyed blindly.
    package static let maxRetryAfterSeconds = 3600

    /// `Retry-After` as seconds from now (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date; capped at
    /// `maxRetryAfterSeconds`. Nil when it is neither, or when it asks for no wait at all (0, or a date past):
    /// passed on as it is, that would invite apps and chores to ask again at once while Apple is throttling, so
    /// the caller's own wait applies instead (found by an audit).
    static func retryAfterSeconds(_ value: String) -> Int? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let seconds: Int
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            seconds = min(Int(text.prefix(9)) ?? maxRetryAfterSeconds, maxRetryAfterSeconds)
        } else {
            guard let date = HTTPDate.parse(text) else { return nil }
            seconds = min(max(0, date - Int(Date().timeIntervalSince1970)), maxRetryAfterSeconds)
        }
        return seconds > 0 ? seconds : nil
    }
}

/// `application/x-www-form-urlencoded` serialisation (WHATWG URL §5.2): unreserved bytes as is, space as `+`.
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> [UInt8] {
        // Room for every byte escaped, so that each field is read once: a form is a few hundred bytes.
        var capacity = max(2 * fields.count - 1, 0)  // the `=` of each field and the `&` between them
        for (name, value) in fields { capacity += 3 * (name.utf8.count + value.utf8.count) }
        return verbatimBytes.withUnsafeBufferPointer { verbatim in
            [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
                var offset = 0
                for (index, field) in fields.enumerated() {
                    if index > 0 { out[offset] = UInt8(ascii: "&"); offset += 1 }
                    var (name, value) = field
                    name.withUTF8 { escape($0, verbatim, into: out, at: &offset) }
                    out[offset] = UInt8(ascii: "=")
                    offset += 1
                    value.withUTF8 { escape($0, verbatim, into: out, at: &offset) }
                }
                initialized = offset
            }
        }
    }

    private static let hexDigits: StaticString = "0123456789ABCDEF"

    /// Whether each byte value is written as it is: ALPHA, DIGIT and `-._*` (the WHATWG URL standard's
    /// application/x-www-form-urlencoded serializer). A space becomes `+`, anything else `%XX`.
    private static let verbatimBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*".utf8 {
            table[Int(byte)] = true
        }
        return table
    }()

    /// Writes `text` escaped at `offset` of `out`, copying each run of verbatim bytes at once (a client secret is
    /// one such run of a few hundred bytes).
    private static func escape(_ text: UnsafeBufferPointer<UInt8>, _ verbatim: UnsafeBufferPointer<Bool>,
                               into out: UnsafeMutableBufferPointer<UInt8>, at offset: inout Int) {
        guard let source = text.baseAddress, let target = out.baseAddress else { return }
        let hex = hexDigits.utf8Start
        var index = 0
        while index < text.count {
            var end = index
            while end < text.count, verbatim[Int(source[end])] { end += 1 }
            if end > index {
                (target + offset).initialize(from: source + index, count: end - index)
                offset += end - index
                index = end
                continue
            }
            let byte = source[index]
            if byte == UInt8(ascii: " ") {
                target[offset] = UInt8(ascii: "+")
                offset += 1
            } else {
                target[offset] = UInt8(ascii: "%")
                target[offset + 1] = hex[Int(byte >> 4)]
                target[offset + 2] = hex[Int(byte & 0x0F)]
                offset += 3
            }
            index += 1
        }
    }
}
