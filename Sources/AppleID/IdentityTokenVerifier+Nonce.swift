import CryptoCore

extension IdentityTokenVerifier {
    /// What a request asks of the identity token's `nonce` claim, which Apple copies from the sign-in request.
    package enum ExpectedNonce: Sendable, Equatable {
        /// An app's raw nonce: the token carries it as given or as its SHA-256 in hexadecimal (Apple's
        /// recommended flow hashes it on the device before `ASAuthorizationAppleIDRequest.nonce`).
        case rawOrHashed(String)
        /// Exactly this value, byte for byte: the web flow's lowercase hex SHA-256 of its `SIWA_STATE` cookie,
        /// which the login page gave `AppleID.auth.init`.
        case exactly(String)
        /// The request sent no nonce, so the token must carry none: a token Apple issued for a sign-in bound to a
        /// nonce is refused without it (OpenID Connect Core 1.0 §3.1.3.7, §15.5.2), and a stolen one cannot be
        /// replayed by leaving the nonce out.
        case notSent

        /// What a request's nonce asks of the token: `rawOrHashed` when it sent one, `notSent` when it did not.
        package static func request(_ nonce: String?) -> ExpectedNonce {
            nonce.map(ExpectedNonce.rawOrHashed) ?? .notSent
        }

        /// Whether `tokenNonce` satisfies this expectation; compared in constant time. Never for `notSent`.
        package func isMatched(by tokenNonce: String) -> Bool {
            switch self {
            case .rawOrHashed(let raw): IdentityTokenVerifier.nonce(tokenNonce, matches: raw)
            case .exactly(let expected): constantTimeEquals(tokenNonce, expected)
            case .notSent: false
            }
        }

        /// The web flow's nonce for a state: the lowercase hex SHA-256 of its UTF-8 bytes.
        package static func hash(ofState state: String) -> String { SHA256.hexHash(state) }
    }
}
