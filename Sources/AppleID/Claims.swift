import Foundation
import JOSE

/// Typed reads of JWT claims (RFC 7519 §4.1); a claim of the wrong type is `.malformed`.
struct Claims {
    let members: [String: JSONValue]

    /// An optional string claim.
    func string(_ name: String) throws -> String? {
        guard let value = members[name], value != .null else { return nil }
        guard let string = value.stringValue else { throw AppleIDError(.malformed, detail: "\(name) is not a string") }
        return string
    }

    /// An optional NumericDate (RFC 7519 §2: seconds since the epoch, fractions allowed).
    func date(_ name: String) throws -> Date? {
        guard let value = members[name], value != .null else { return nil }
        guard let seconds = value.numberValue, seconds >= 0 else {
            throw AppleIDError(.malformed, detail: "\(name) is not a NumericDate")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// An optional integer claim.
    func integer(_ name: String) throws -> Int? {
        guard let value = members[name], value != .null else { return nil }
        guard let number = value.numberValue, number == number.rounded(), abs(number) < 1e15 else {
            throw AppleIDError(.malformed, detail: "\(name) is not an integer")
        }
        return Int(number)
    }

    /// An optional boolean that Apple may send as `true`/`false` or as the strings "true"/"false".
    func flexibleBool(_ name: String) throws -> Bool? {
        switch members[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw AppleIDError(.malformed, detail: "\(name) is not a boolean")
        }
    }

    /// `aud` as a list: a string or an array of strings (RFC 7519 §4.1.3).
    func audiences() throws -> [String] {
        switch members["aud"] {
        case .string(let value)?: return [value]
        case .array(let values)?:
            let strings = values.compactMap(\.stringValue)
            guard strings.count == values.count else { throw AppleIDError(.wrongAudience, detail: "aud has non-strings") }
            return strings
        default:
            throw AppleIDError(.wrongAudience, detail: "aud missing or not a string or array")
        }
    }
}
