/// Splits a request target's path into percent-decoded segments for routing.
///
/// Empty segments (`//`, a trailing `/`) are dropped; `.` and `..` are removed as in RFC 3986 §5.2.4, also when
/// percent-encoded (RFC 3986 §6.2.2.2), and `..` never climbs above the root. Returns nil for a malformed target:
/// a bad percent-escape, invalid UTF-8, or a NUL byte.
enum RequestPath {
    static func segments(ofTarget target: String) -> [String]? {
        var path = target[...]
        // Byte searches: the characters' views break graphemes for nothing (every byte sought is ASCII).
        if let end = path.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            path = path[..<end]
        }
        if path == "*" { return [] }
        if !path.hasPrefix("/") {
            // absolute-form (RFC 9112 §3.2.2): scheme "://" authority path
            guard let scheme = path.range(of: "://") else { return nil }
            let afterAuthority = path[scheme.upperBound...]
            guard let slash = afterAuthority.firstIndex(of: "/") else { return [] }
            path = afterAuthority[slash...]
        }
        var segments: [String] = []
        for bytes in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let raw = path[bytes.startIndex..<bytes.endIndex]
            guard let segment = try? PercentDecoding.decode(raw), !segment.utf8.contains(0) else { return nil }
            switch segment {
            case ".": continue
            case "..": if !segments.isEmpty { segments.removeLast() }
            default: segments.append(segment)
            }
        }
        return segments
    }
}
