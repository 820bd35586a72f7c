import CryptoCore
import JOSE

/// Base64url is strict (RFC 4648 §3.5, §5): every byte string has exactly one accepted text, so
/// `decode(encode(x)) == x` for all x, and an accepted text re-encodes to itself.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))

    let encoded = Base64URL.encodeToBytes(input)
    guard Base64URL.encode(input) == String(decoding: encoded, as: UTF8.self) else {
        fatalError("encode and encodeToBytes differ for \(input)")
    }
    guard encoded.count == (size * 4 + 2) / 3 else { fatalError("encoded length \(encoded.count) for \(size) bytes") }
    guard Base64URL.decode(encoded) == input else { fatalError("decode(encode(x)) != x for \(input)") }

    let decoded = Base64URL.decode(input)
    if let decoded {
        guard Base64URL.encodeToBytes(decoded) == input else {
            fatalError("accepted text does not re-encode to itself: \(input)")
        }
    }
    guard Base64URL.decode(input[...]) == decoded, Base64URL.decode(AnyCollection(input)) == decoded else {
        fatalError("slice, collection and array decodes differ: \(input)")
    }
    if let text = String(validating: input, as: UTF8.self) {
        guard Base64URL.decode(text) == decoded else { fatalError("String and byte decodes differ: \(input)") }
    }
    return 0
}
