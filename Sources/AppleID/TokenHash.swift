import CryptoCore
import JSON

/// `at_hash` and `c_hash` of an ID token (OpenID Connect Core §3.1.3.6, §3.3.2.11): base64url of the left half
/// of the SHA-256 of the access token or authorization code (SHA-256 because Apple signs with RS256).
package enum TokenHash {
    package static func of(_ value: String) -> String {
        Base64URL.encode(SHA256.hash(value).prefix(16))
    }
}
