import Foundation
@testable import AppleID
import JOSE
import JSON

/// The claim checks of `IdentityTokenVerifier` (everything after the signature) and the server-notification
/// payload, fed a claims object directly. The first byte picks options; the rest is the claims JSON.
///
/// Invariants: whatever the checks accept satisfies them — `iss` exact, the audience one of the client ids,
/// `exp` and `iat` within the leeway, `iat` within the maximum age, `sub` non-empty, the nonce matching.
let now = Date(timeIntervalSince1970: 1_700_000_000)
let clientIDs: Set<String> = ["com.example.app", "com.example.web"]
let header = try! JOSEHeader(json: Array(#"{"alg":"RS256","kid":"k"}"#.utf8))
let requestNonce = "n-0123"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let options = data[0]
    let payload = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let requireExpiration = options & 1 != 0
    let nonce = options & 2 != 0 ? requestNonce : nil
    let maximumAge: TimeInterval? = options & 4 != 0 ? ServerNotification.maximumAge : nil
    let verifier = IdentityTokenVerifier(keys: FixedSigningKeys([:]), clientIDs: clientIDs,
                                         maximumTokenAge: maximumAge, clock: { now })
    guard let members = try? JSONValue.parseObjectMembers(payload),
          let (jwt, claims) = try? verifier.checkClaims(header: header, members: members,
                                                        requireExpiration: requireExpiration) else { return 0 }
    let leeway = verifier.leeway
    guard case .string(IdentityTokenVerifier.appleIssuer)? = claims.iss,
          clientIDs.contains(jwt.audience),
          jwt.issuedAt.timeIntervalSince(now) <= leeway,
          jwt.expiresAt.map({ now.timeIntervalSince($0) <= leeway }) ?? !requireExpiration,
          maximumAge.map({ now.timeIntervalSince(jwt.issuedAt) <= $0 + leeway }) ?? true else {
        fatalError("claims accepted against the rules: \(String(decoding: payload, as: UTF8.self))")
    }
    if let token = try? verifier.identityToken(jwt: jwt, claims: claims, nonce: nonce.map { .rawOrHashed($0) }) {
        guard !token.sub.isEmpty, token.expiresAt == jwt.expiresAt,
              nonce.map({ IdentityTokenVerifier.nonce(token.nonce ?? "", matches: $0) }) ?? true else {
            fatalError("identity token accepted against the rules: \(String(decoding: payload, as: UTF8.self))")
        }
    }
    if let notification = try? ServerNotification(jwt) {
        guard !notification.id.isEmpty, !notification.subject.isEmpty else {
            fatalError("notification accepted without jti or sub: \(String(decoding: payload, as: UTF8.self))")
        }
    }
    return 0
}
