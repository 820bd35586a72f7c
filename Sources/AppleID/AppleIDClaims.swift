import CryptoCore
import Foundation
import JSON

/// The registered and Apple claims of a JWT (RFC 7519 §4.1), picked out in one pass over the
/// members; the typed reads throw `.malformed` for a claim of the wrong type.
struct AppleIDClaims {
    var iss: JSONValue?, aud: JSONValue?, exp: JSONValue?, iat: JSONValue?, nbf: JSONValue?, sub: JSONValue?
    var nonce: JSONValue?, email: JSONValue?, emailVerified: JSONValue?, isPrivateEmail: JSONValue?
    var nonceSupported: JSONValue?, realUserStatus: JSONValue?, authTime: JSONValue?
    var atHash: JSONValue?, cHash: JSONValue?

    init(_ members: [JSONMember]) {
        for member in members {
            let value = member.value
            // Dispatch on length first: unequal Swift strings compare slowly, lengths do not.
            switch (member.name.utf8.count, member.name) {
            case (3, "iss"): iss = value
            case (3, "aud"): aud = value
            case (3, "exp"): exp = value
            case (3, "iat"): iat = value
            case (3, "nbf"): nbf = value
            case (3, "sub"): sub = value
            case (5, "nonce"): nonce = value
            case (5, "email"): email = value
            case (14, "email_verified"): emailVerified = value
            case (16, "is_private_email"): isPrivateEmail = value
            case (15, "nonce_supported"): nonceSupported = value
            case (16, "real_user_status"): realUserStatus = value
            case (9, "auth_time"): authTime = value
            case (7, "at_hash"): atHash = value
            case (6, "c_hash"): cHash = value
            default: break
            }
        }
    }

    /// An optional string claim.
    static func string(_ value: JSONValue?, _ name: String) throws -> String? {
        guard let value, value != .null else { return nil }
        guard value.stringValue != nil else { throw AppleIDError(.malformed, detail: "\(name) is not a string") }
        guard let string = value.storableString else {
            throw AppleIDError(.malformed, detail: "\(name) holds a NUL character")
        }
        return string
    }

    /// An optional NumericDate (RFC 7519 §2: seconds since the epoch, fractions allowed).
    static func date(_ value: JSONValue?, _ name: String) throws -> Date? {
        guard let value, value != .null else { return nil }
        guard let seconds = value.numberValue, seconds >= 0 else {
            throw AppleIDError(.malformed, detail: "\(name) is not a NumericDate")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// An optional integer claim.
    static func integer(_ value: JSONValue?, _ name: String) throws -> Int? {
        guard let value, value != .null else { return nil }
        guard let number = value.numberValue, number == number.rounded(), abs(number) < 1e15 else {
            throw AppleIDError(.malformed, detail: "\(name) is not an integer")
        }
        return Int(number)
    }

    /// An optional boolean that Apple may send as `true`/`false` or as the strings "true"/"false".
    static func flexibleBool(_ value: JSONValue?, _ name: String) throws -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw AppleIDError(.malformed, detail: "\(name) is not a boolean")
        }
    }

    /// The first `aud` value that is in `expected`; `aud` is a string or an array of strings
    /// (RFC 7519 §4.1.3), each compared code point by code point (§7.3: no Unicode normalisation, which Swift's
    /// string equality applies; found by a review: `com.example.\u{212A}iosk`, with a Kelvin sign, matched
    /// `com.example.Kiosk`, and its spelling was recorded as the user's client id).
    func audience(in expected: Set<String>) throws -> String? {
        // The configured ids are few: comparing bytes is cheaper than hashing, which also normalises.
        func matching(_ value: String) -> String? { expected.first { constantTimeEquals($0, value) } }
        switch aud {
        case .string(let value)?:
            return matching(value)
        case .array(let values)?:
            var match: String?
            for value in values {
                guard case .string(let string) = value else {
                    throw AppleIDError(.wrongAudience, detail: "aud has non-strings")
                }
                if match == nil { match = matching(string) }
            }
            return match
        default:
            throw AppleIDError(.wrongAudience, detail: "aud missing or not a string or array")
        }
    }
}
