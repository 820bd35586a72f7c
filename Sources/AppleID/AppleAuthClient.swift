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

    /// - Parameters:
    ///   - baseURL: `APPLE_BASE_URL`, e.g. `https://appleid.apple.com`.
    ///   - clientSecret: mints the `client_secret` per client id.
    ///   - http: the HTTPS client.
    package init(baseURL: String, clientSecret: ClientSecret, http: HTTPClient = HTTPClient()) {
        self.baseURL = baseURL
        self.clientSecret = clientSecret
        self.http = http
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
        let path = "/auth/\(endpoint.rawValue)"
        let started = MonotonicClock.now()
        defer { calls.recordDuration(endpoint, nanoseconds: Int(clamping: MonotonicClock.now() - started)) }
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let response: HTTPClientResponse
        do {
            response = try await http.send(HTTPClientRequest(
                method: .POST, url: baseURL + path, headers: headers, body: FormEncoding.encode(form)
            ))
        } catch {
            let kind = (error as? HTTPClientError)?.kind
            let timedOut = kind == .readTimeout || kind == .poolTimeout || kind == .connectTimeout
            calls.record(endpoint, timedOut ? .timeout : .networkError)
            throw AppleAuthError(.unreachable, detail: "\(path): \(error)")
        }
        if response.status.code == 200 { return response }
        let retryAfter = response.headers["Retry-After"].flatMap(Self.retryAfterSeconds)
        if response.status.code == 429 {
            calls.record(endpoint, .throttled)
            throw AppleAuthError(.throttled, detail: "\(path) answered 429", retryAfterSeconds: retryAfter)
        }
        let code = (try? JSONValue(parsing: response.body))?["error"]?.stringValue
        if let code, response.status.code < 500 {
            calls.record(endpoint, .init(appleErrorCode: code))
            throw AppleAuthError(.apple(code), detail: "\(path) answered \(response.status.code)")
        }
        if response.status.code >= 500 {
            calls.record(endpoint, .serverError)
            throw AppleAuthError(.unreachable, detail: "\(path) answered \(response.status.code)",
                                 retryAfterSeconds: retryAfter)
        }
        calls.record(endpoint, .malformedResponse)
        throw AppleAuthError(.malformedResponse, detail: "\(path) answered \(response.status.code) without an error code")
    }

    /// Reads the answer's members in order rather than building a dictionary of them: there are five, read once.
    private func decodeTokenResponse(_ response: HTTPClientResponse) throws -> TokenResponse {
        let members = (try? JSONValue.parseObjectMembers(response.body)) ?? []
        func member(_ name: String) -> JSONValue? { members.first { $0.name == name }?.value }
        guard let accessToken = member("access_token")?.stringValue, let idToken = member("id_token")?.stringValue
        else {
            calls.record(.token, .malformedResponse)
            throw AppleAuthError(.malformedResponse, detail: "/auth/token answer lacks access_token or id_token")
        }
        calls.record(.token, .ok)
        return TokenResponse(
            accessToken: accessToken, tokenType: member("token_type")?.stringValue ?? "Bearer",
            expiresIn: Int(member("expires_in")?.numberValue ?? 0), refreshToken: member("refresh_token")?.stringValue,
            idToken: idToken
        )
    }
}

extension AppleAuthClient {
    /// The longest wait taken from a `Retry-After`: a longer one is capped, not obeyed blindly.
    package static let maxRetryAfterSeconds = 3600

    /// `Retry-After` as seconds from now (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date; capped at
    /// `maxRetryAfterSeconds`, nil when it is neither.
    static func retryAfterSeconds(_ value: String) -> Int? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return min(Int(text.prefix(9)) ?? maxRetryAfterSeconds, maxRetryAfterSeconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return min(max(0, date - Int(Date().timeIntervalSince1970)), maxRetryAfterSeconds)
    }
}

/// `application/x-www-form-urlencoded` serialisation (WHATWG URL §5.2): unreserved bytes as is, space as `+`.
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> [UInt8] {
        var fields = fields
        // Room for every byte escaped, so that each field is read once: a form is a few hundred bytes.
        var capacity = max(2 * fields.count - 1, 0)  // the `=` of each field and the `&` between them
        for (name, value) in fields { capacity += 3 * (name.utf8.count + value.utf8.count) }
        let verbatim = verbatimBytes
        return [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
            var offset = 0
            for index in fields.indices {
                if index > 0 { out[offset] = UInt8(ascii: "&"); offset += 1 }
                fields[index].0.withUTF8 { escape($0, verbatim, into: out, at: &offset) }
                out[offset] = UInt8(ascii: "=")
                offset += 1
                fields[index].1.withUTF8 { escape($0, verbatim, into: out, at: &offset) }
            }
            initialized = offset
        }
    }

    private static let hexDigits: StaticString = "0123456789ABCDEF"

    /// The bytes written as they are, as two bit masks over 0–63 and 64–127: ALPHA, DIGIT and `-._*` (the WHATWG
    /// URL standard's application/x-www-form-urlencoded serializer). A space becomes `+`, anything else `%XX`.
    private static let verbatimBytes: (low: UInt64, high: UInt64) = {
        var masks: (low: UInt64, high: UInt64) = (0, 0)
        for byte in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*".utf8 {
            if byte < 64 { masks.low |= 1 << byte } else { masks.high |= 1 << (byte - 64) }
        }
        return masks
    }()

    private static func escape(_ text: UnsafeBufferPointer<UInt8>, _ verbatim: (low: UInt64, high: UInt64),
                               into out: UnsafeMutableBufferPointer<UInt8>, at offset: inout Int) {
        let hex = hexDigits.utf8Start
        for byte in text {
            let mask = byte < 64 ? verbatim.low : byte < 128 ? verbatim.high : 0
            if mask & (1 << (byte & 63)) != 0 {
                out[offset] = byte
                offset += 1
            } else if byte == UInt8(ascii: " ") {
                out[offset] = UInt8(ascii: "+")
                offset += 1
            } else {
                out[offset] = UInt8(ascii: "%")
                out[offset + 1] = hex[Int(byte >> 4)]
                out[offset + 2] = hex[Int(byte & 0x0F)]
                offset += 3
            }
        }
    }
}
