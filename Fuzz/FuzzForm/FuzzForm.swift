@testable import Web

/// `application/x-www-form-urlencoded` parsing (WHATWG URL §5.1) and the form decoder.
///
/// Invariants: the pairs equal those of a byte-level reading of the spec (split on the byte `&`, then on the
/// first `=`), and re-encoding the pairs with `PercentDecoding.encode` parses back to the same pairs.
struct Profile: Decodable {
    enum Role: String, Decodable { case admin, user }
    struct Address: Decodable {
        var city: String
        var zip: Int?
    }

    var name: String
    var age: Int?
    var score: Double?
    var active: Bool?
    var role: Role?
    var count: UInt64?
    var address: Address?
}

/// The spec's algorithm over UTF-8 bytes: pieces split on 0x26, empty ones skipped, name and value split on
/// the first 0x3D, `+` as space, then strict percent-decoding.
func model(_ text: String) -> [String]? {
    var result: [String] = []
    for piece in Array(text.utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
        let equals = piece.firstIndex(of: UInt8(ascii: "=")) ?? piece.endIndex
        let name = String(decoding: piece[piece.startIndex..<equals], as: UTF8.self)
        let value = equals == piece.endIndex ? "" : String(decoding: piece[(equals + 1)...], as: UTF8.self)
        guard let decodedName = try? PercentDecoding.decode(name[...], plusAsSpace: true),
              let decodedValue = try? PercentDecoding.decode(value[...], plusAsSpace: true) else { return nil }
        result.append(decodedName + "=" + decodedValue)
    }
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let pairs = try? URLEncodedForm.parse(text[...])
    let flat = pairs?.map { $0.name + "=" + $0.value }
    guard flat == model(text) else {
        fatalError("form parse differs from the byte-level reading: \(text.debugDescription)\n\(String(describing: flat))")
    }
    guard let pairs else { return 0 }
    let encoded = pairs.map { PercentDecoding.encode($0.name) + "=" + PercentDecoding.encode($0.value) }
        .joined(separator: "&")
    guard let again = try? URLEncodedForm.parse(encoded[...]), again.map({ $0.name + "=" + $0.value }) == flat else {
        fatalError("re-encoded form parses differently: \(text.debugDescription) -> \(encoded)")
    }
    let fields = URLEncodedForm.dictionary(pairs)
    for pair in pairs where fields[pair.name] == nil { fatalError("field \(pair.name) lost") }
    _ = try? FormDecoder().decode(Profile.self, from: fields)
    _ = try? FormDecoder().decode([String: String].self, from: fields)
    _ = try? FormDecoder().decode(Profile.Address.self, from: fields)
    return 0
}
