import AppleID
import CryptoCore
import Foundation
import HTTPCore
import JOSE
import JSON

/// Sends server-to-server notifications the way Apple does: `POST {"payload": "<JWT>"}`, the JWT signed with
/// Apple's key and carrying the event as a JSON string in its `events` claim.
package enum FakeAppleNotifier {
    /// Event types Apple sends.
    package static let eventTypes: Set<String> = ["email-disabled", "email-enabled", "consent-revoked", "account-delete"]

    /// The notification JWT for one event, issued at `now`; its `event_time` is `eventTime`, else `now`.
    /// `isPrivateEmail` is, unless given, whether `email` is a private relay address: Apple sends email events for
    /// relay addresses. Found by a review: always "true", a notice about a real address marked it a relay.
    package static func payload(event: String, subject: String, audience: String, email: String?,
                               isPrivateEmail: Bool? = nil, keys: FakeAppleKeys, now: Date = Date(),
                               eventTime: Date? = nil) throws -> String {
        let isPrivateEmail = isPrivateEmail ?? email.map(FakeAppleKeys.isRelayAddress) ?? true
        let eventTime = ((eventTime ?? now).timeIntervalSince1970 * 1000).rounded(.down)
        var eventClaims: [String: JSONValue] = [
            "type": .string(event), "sub": .string(subject), "event_time": .number(eventTime),
        ]
        if let email {
            eventClaims["email"] = .string(email)
            eventClaims["is_private_email"] = isPrivateEmail ? "true" : "false"
        }
        let events = String(decoding: JSONValue.object(eventClaims).serialized(), as: UTF8.self)
        let claims: JSONValue = [
            "iss": .string(IdentityTokenVerifier.appleIssuer), "aud": .string(audience),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number(now.timeIntervalSince1970.rounded(.down) + ServerNotification.maximumAge),
            "jti": .string(Base64URL.encode(try SecureRandom.bytes(count: 16))),
            "events": .string(events),
        ]
        return try JWTSigner.sign(claims: claims, keyID: keys.keyID, key: .rs256(keys.privateKey))
    }

    /// Signs and posts one event to `url`; returns the status the server answered and what its JSON body says: the
    /// `status` of a taken notification (`applied`, `duplicate`, …) or the `reason` of a refusal, when it has one.
    package static func send(event: String, subject: String, audience: String, email: String?, to url: String,
                            keyFile: String) async throws -> (status: Int, answer: String?) {
        let keys = try FakeAppleKeys.load(path: keyFile)
        let jwt = try payload(event: event, subject: subject, audience: audience, email: email, keys: keys)
        let body = JSONValue.object(["payload": .string(jwt)]).serialized()
        let response = try await HTTPClient().send(HTTPClientRequest(
            method: .POST, url: url, headers: ["Content-Type": "application/json"], body: body
        ))
        let answer = (try? JSONValue(parsing: response.body)).flatMap {
            $0["status"]?.stringValue ?? $0["reason"]?.stringValue
        }
        return (response.status.code, answer)
    }
}
