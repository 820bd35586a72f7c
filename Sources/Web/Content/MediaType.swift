/// Media types: parsing `Content-Type` and `Accept`, and the type of a file by its extension.
enum MediaType {
    static let json = "application/json; charset=utf-8"
    static let html = "text/html; charset=utf-8"
    static let plainText = "text/plain; charset=utf-8"

    /// The type/subtype of a header value, lowercased, parameters dropped (RFC 9110 §8.3.1).
    static func essence(of value: String?) -> String? {
        guard let value else { return nil }
        if let essence = asciiEssence(of: value) { return essence.isEmpty ? nil : essence }
        let essence = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() } ?? ""
        return essence.isEmpty ? nil : essence
    }

    /// `essence(of:)` for an all-ASCII value, on its bytes (the usual case: a character walk and `lowercased()`
    /// cost more than the rest of reading a small JSON body); nil for any other value.
    private static func asciiEssence(of value: String) -> String? {
        var value = value
        return value.withUTF8 { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            // The first non-empty run between semicolons, as `split` (which omits empty runs) gives it.
            var start = bytes.startIndex
            while start < bytes.endIndex, bytes[start] == UInt8(ascii: ";") { start += 1 }
            var end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            return String(unsafeUninitializedCapacity: end - start) { out in
                for offset in 0..<(end - start) {
                    let byte = bytes[start + offset]
                    out[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                }
                return end - start
            }
        }
    }

    /// Whether an `Accept` header asks for HTML rather than JSON: it names `text/html` (a browser's does), and the
    /// quality it gives HTML is above the one it gives JSON (RFC 9110 §12.5.1: the most specific range that
    /// matches a type gives its `q`; `application/json`, a `+json` type, `application/*` and `*/*` count for JSON).
    /// `q=0` refuses a type (§12.4.2): `text/html;q=0, */*` is JSON. At equal quality the type named outright wins
    /// over one a wildcard covers (a legacy browser's `text/html, …, */*` is HTML), and two named is JSON, the
    /// API's answer.
    static func prefersHTML(accept: String?) -> Bool {
        guard let accept else { return false }
        var html: (specificity: Int, q: Double)?
        var json: (specificity: Int, q: Double) = (0, 0)
        var namesHTML = false
        for element in accept.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let range = parts.first.map({ $0.trimmingSpaces().lowercased() }), !range.isEmpty,
                  let q = quality(parts.dropFirst())
            else { continue }
            let htmlSpecificity = switch range { case "text/html": 3; case "text/*": 2; case "*/*": 1; default: 0 }
            if htmlSpecificity == 3 { namesHTML = true }
            if htmlSpecificity > (html?.specificity ?? 0) { html = (htmlSpecificity, q) }
            let jsonSpecificity = switch range {
            case "application/json": 3
            case _ where range.hasSuffix("+json"): 3
            case "application/*": 2
            case "*/*": 1
            default: 0
            }
            if jsonSpecificity > json.specificity || (jsonSpecificity == json.specificity && jsonSpecificity == 3 && q > json.q) {
                json = (jsonSpecificity, q)
            }
        }
        guard namesHTML, let html, html.q > 0 else { return false }
        return html.q > json.q || (html.q == json.q && html.specificity > json.specificity)
    }

    /// The `q` of a media range's parameters (1 without one); nil for a `q` that is not a number from 0 to 1.
    private static func quality(_ parameters: ArraySlice<Substring>) -> Double? {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { continue }
            guard let q = Double(String(pair[1].trimmingSpaces())), q >= 0, q <= 1 else { return nil }
            return q
        }
        return 1
    }

    /// The `Content-Type` for a file extension, `application/octet-stream` when unknown.
    static func forFileExtension(_ fileExtension: String) -> String {
        switch fileExtension.lowercased() {
        case "html", "htm": html
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": json
        case "txt": plainText
        case "xml": "application/xml; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "ico": "image/x-icon"
        case "woff": "font/woff"
        case "woff2": "font/woff2"
        case "ttf": "font/ttf"
        case "otf": "font/otf"
        case "pdf": "application/pdf"
        case "wasm": "application/wasm"
        case "webmanifest": "application/manifest+json"
        case "map": json
        default: "application/octet-stream"
        }
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
