import Foundation
import JSON

/// One of Apple's server-to-server notifications (Sign in with Apple): a JWT whose `events` claim is a JSON
/// *string* describing what changed for a user.
package struct ServerNotification: Sendable, Equatable {
    /// The kinds Apple sends. `account-delete` also arrives spelled `account-deleted`.
    package enum EventType: Sendable, Equatable {
        case emailDisabled, emailEnabled, consentRevoked, accountDelete
        /// A type this server does not know; acknowledged and ignored.
        case unknown(String)

        init(_ raw: String) {
            switch raw {
            case "email-disabled": self = .emailDisabled
            case "email-enabled": self = .emailEnabled
            case "consent-revoked": self = .consentRevoked
            case "account-delete", "account-deleted": self = .accountDelete
            default: self = .unknown(raw)
            }
        }
    }

    /// How long after `iat` a notification is still accepted: a day, the life Apple gives its payloads
    /// (`exp` = `iat` + 24 h), over which it retries a delivery the server did not answer with 200; `jti`
    /// de-duplication covers replays within the window. Found by a review: an hour refused, for good, the
    /// retries of an `account-delete` sent during an outage of more than an hour.
    package static let maximumAge: TimeInterval = 24 * 60 * 60

    /// `jti`: the notification's id, for de-duplication.
    package var id: String
    /// The client id the notification is for.
    package var audience: String
    package var type: EventType
    /// The user's Apple identifier.
    package var subject: String
    /// The (relay) email the event concerns, for email events.
    package var email: String?
    package var isPrivateEmail: Bool?
    package var eventTime: Date?

    /// Decodes the claims of a verified notification JWT.
    /// - Throws: `AppleIDError(.malformed)` when `jti` or `events` is missing or `events` is not the JSON Apple sends.
    package init(_ jwt: VerifiedJWT) throws {
        guard let id = jwt.claims["jti"]?.storableString, !id.isEmpty else {
            throw AppleIDError(.malformed, detail: "notification lacks jti")
        }
        let events: JSONValue
        switch jwt.claims["events"] {
        case .string(let text)?:
            guard let parsed = try? JSONValue(parsing: Array(text.utf8)) else {
                throw AppleIDError(.malformed, detail: "events is not JSON")
            }
            events = parsed
        case .object(let object)?:
            events = .object(object)
        default:
            throw AppleIDError(.malformed, detail: "notification lacks events")
        }
        guard let type = events["type"]?.stringValue, let subject = events["sub"]?.storableString, !subject.isEmpty else {
            throw AppleIDError(.malformed, detail: "events lacks type or sub")
        }
        self.id = id
        audience = jwt.audience
        self.type = EventType(type)
        self.subject = subject
        email = events["email"]?.storableString
        switch events["is_private_email"] {
        case .bool(let value)?: isPrivateEmail = value
        case .string(let text)?: isPrivateEmail = text == "true" ? true : (text == "false" ? false : nil)
        default: isPrivateEmail = nil
        }
        // Milliseconds since 1970, as Apple sends it. Missing (or null), the event counts as of its arrival; anything
        // else is no notification of Apple's (found by a black-box review: "abc" was taken as the arrival, which
        // for a `consent-revoked` ends later grants too).
        if let value = events["event_time"], value != .null {
            guard let milliseconds = value.numberValue, milliseconds >= 0 else {
                throw AppleIDError(.malformed, detail: "event_time is not a time in milliseconds")
            }
            eventTime = Date(timeIntervalSince1970: milliseconds / 1000)
        } else {
            eventTime = nil
        }
    }
}
