@testable import Web

/// `Cookie` header parsing (RFC 6265 §5.4, §4.2.1). Each input line is one `Cookie` field.
///
/// Invariant: the result equals a byte-level reading of the grammar (split on the byte `;`, then on the first
/// `=`, SP/HTAB trimmed, first name wins, one pair of surrounding double quotes removed).
func model(_ headers: [String]) -> [String: String] {
    func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
    var cookies: [String: String] = [:]
    for header in headers {
        for piece in Array(header.utf8).split(separator: UInt8(ascii: ";")) {
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: trim(piece[piece.startIndex..<equals]), as: UTF8.self)
            var value = trim(piece[(equals + 1)...])
            guard !name.isEmpty, cookies[name] == nil else { continue }
            if value.count >= 2, value.first == 0x22, value.last == 0x22 { value = value.dropFirst().dropLast() }
            cookies[name] = String(decoding: value, as: UTF8.self)
        }
    }
    return cookies
}

@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let headers = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String($0) ?? "" }
    let cookies = CookieParser.parse(headers)
    let expected = model(headers)
    guard cookies == expected else {
        fatalError("cookie parse differs from the byte-level reading: \(text.debugDescription)\n\(cookies)\n\(expected)")
    }
    return 0
}
