import CryptoCore
@testable import JOSE
@testable import JSON

/// Strict JSON (RFC 8259) and the JOSE documents read from it (RFC 7515 §4, RFC 7517 §4–5).
///
/// Invariants: an accepted value serialises to JSON that parses to an equal value and serialises to the
/// same bytes; `parseObjectMembers` accepts exactly the objects `parse` accepts, with the same members;
/// a parsed JWK Set written back out parses to an equal set.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let value = try? JSONValue(parsing: input)
    let members = try? JSONValue.parseObjectMembers(input)

    if let value {
        let text = value.serialized()
        guard let again = try? JSONValue(parsing: text) else {
            fatalError("serialised JSON refused: \(String(decoding: text, as: UTF8.self).debugDescription)")
        }
        guard again == value, again.serialized() == text else {
            fatalError("JSON round trip differs:\n\(value)\n---\n\(again)")
        }
    }
    var isObject = false
    if case .object(let object)? = value {
        isObject = true
        if let members, members.count != object.count || members.dictionary != object {
            fatalError("parseObjectMembers disagrees with parse: \(members) vs \(object)")
        }
    }
    guard isObject == (members != nil) else { fatalError("parse and parseObjectMembers disagree on \(input)") }

    if let header = try? JOSEHeader(json: input) {
        _ = try? header.checkPolicy(allowing: [.rs256])
        _ = try? header.checkPolicy(allowing: [.es256, .rs256])
    }
    if let value, let jwk = try? JWK(json: value) {
        _ = try? RSAPublicKey(jwk: jwk)
        _ = try? ES256PublicKey(jwk: jwk)
        for algorithm in [JWSAlgorithm.rs256, .es256] { _ = jwk.permits(algorithm) }
    }
    if let set = try? JWKSet(json: input) {
        guard let again = try? JWKSet(json: set.jsonValue.serialized()), again == set else {
            fatalError("JWKS round trip differs for \(set)")
        }
        for key in set.keys { _ = try? set.rsaKey(withID: key.keyID ?? "") }
    }
    return 0
}
