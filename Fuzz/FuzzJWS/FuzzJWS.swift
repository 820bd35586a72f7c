import CryptoCore
import JOSE

/// Compact JWS splitting and decoding (RFC 7515 §7.1, §5.2).
///
/// Invariant: base64url is strict, so an accepted token is exactly the re-encoding of its decoded parts,
/// and the signing input is the first two parts as received.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let limits = JWSLimits(maximumTokenBytes: 4096, maximumHeaderBytes: 512, maximumSignatureBytes: 600)
    guard let jws = try? JWS(compact: text, limits: limits) else { return 0 }
    _ = try? jws.header.checkPolicy(allowing: [.rs256])
    let headerJSON = jws.signingInput.prefix { $0 != UInt8(ascii: ".") }
    guard let headerBytes = Base64URL.decode(headerJSON), (try? JOSEHeader(json: headerBytes)) == jws.header else {
        fatalError("header part does not decode to the header: \(text.debugDescription)")
    }
    let rebuilt = Base64URL.encode(headerBytes) + "." + Base64URL.encode(jws.payload) + "."
        + Base64URL.encode(jws.signature)
    guard rebuilt == text else { fatalError("re-encoded token differs: \(text.debugDescription) vs \(rebuilt)") }
    guard jws.signingInput == Array(text.utf8.prefix(jws.signingInput.count)),
          text.utf8.count == jws.signingInput.count + 1 + Base64URL.encodeToBytes(jws.signature).count else {
        fatalError("signing input is not the first two parts: \(text.debugDescription)")
    }
    return 0
}
