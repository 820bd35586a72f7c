import Foundation

/// One probe from Http11Probe's documentation: the raw request and the outcomes that count as a pass.
struct HTTP11Probe: CustomStringConvertible, Sendable {
    enum Outcome: Hashable, Sendable {
        case status(Int)
        case statusClass(Int)
        case close
        case timeout
    }

    var id: String
    var request: [UInt8]
    /// Requests sent back to back (prose "Step 1/Step 2" or blank-line separated); graded on desync.
    var steps: Int
    var passing: Set<Outcome>
    var expectedText: String

    var description: String { id }

    func passes(status: Int?) -> Bool {
        guard let status else { return passing.contains(.close) || passing.contains(.timeout) }
        if status == 408, passing.contains(.timeout) || passing.contains(.close) { return true }
        return passing.contains(.status(status)) || passing.contains(.statusClass(status / 100))
    }

    static let families = ["smuggling", "request-line", "headers", "content-length", "body", "malformed-input",
                           "line-endings", "host-header"]

    /// Probes with a single literal request and a status-based expectation; others (prose-only payloads,
    /// normalisation or upgrade grading) are left out.
    static func load(from docs: URL) throws -> [HTTP11Probe] {
        var probes: [HTTP11Probe] = []
        for family in families {
            let folder = docs.appendingPathComponent(family)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            where file.hasSuffix(".md") && file != "_index.md" {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                guard let probe = parse(text, fallbackID: "\(family)/\(file)") else { continue }
                probes.append(probe)
            }
        }
        return probes
    }

    static func parse(_ text: String, fallbackID: String) -> HTTP11Probe? {
        let lines = text.components(separatedBy: "\n")
        var id = fallbackID
        var expected = ""
        for line in lines {
            if line.hasPrefix("| **Test ID**") { id = cell(line).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            if line.hasPrefix("| **Expected**") { expected = cell(line) }
        }
        let sendsEnd = lines.firstIndex { $0.hasPrefix("## ") && !$0.hasPrefix("## What it sends") } ?? lines.count
        var blocks: [[String]] = []
        var index = 0
        while index < lines.count, let start = lines[index...].firstIndex(of: "```http") {
            guard let end = lines[(start + 1)...].firstIndex(of: "```") else { break }
            if blocks.isEmpty || start < sendsEnd || lines[0..<start].contains(where: { $0.hasPrefix("Step") }) {
                blocks.append(Array(lines[(start + 1)..<end]))
            }
            index = end + 1
            if !lines[index..<min(lines.count, index + 6)].contains(where: { $0.hasPrefix("Step") }) { break }
        }
        guard !blocks.isEmpty else { return nil }
        var steps = blocks.count
        for block in blocks {
            let inner = block.drop { $0.isEmpty }.reversed().drop { $0.isEmpty }
            steps += inner.filter(\.isEmpty).count
        }
        guard let request = decode(blocks.map { $0.joined() }.joined()), !request.isEmpty else { return nil }
        let passing = outcomes(expected)
        guard !passing.isEmpty else { return nil }
        return HTTP11Probe(id: id, request: request, steps: steps, passing: passing, expectedText: expected)
    }

    static func cell(_ line: String) -> String {
        let parts = line.split(separator: "|", omittingEmptySubsequences: true)
        return parts.count >= 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
    }

    /// The outcomes graded "pass": segments graded warn/fail are dropped.
    static func outcomes(_ expected: String) -> Set<Outcome> {
        var result: Set<Outcome> = []
        let segments = expected.split(whereSeparator: { $0 == ";" || $0 == "," })
        for segment in segments {
            let lower = segment.lowercased()
            if lower.contains("warn") || lower.contains("fail") || lower.contains("poison") { continue }
            if lower.contains("non-") || lower.contains("reject/drop") { return [] }
            var rest = Substring(lower)
            while let range = rest.range(of: #"[0-9][0-9x][0-9x]"#, options: .regularExpression) {
                let token = rest[range]
                if token.hasSuffix("xx"), let digit = Int(token.prefix(1)) {
                    result.insert(.statusClass(digit))
                } else if let code = Int(token) {
                    result.insert(.status(code))
                }
                rest = rest[range.upperBound...]
            }
            if lower.contains("close") || lower.contains("drop") { result.insert(.close) }
            if lower.contains("timeout") { result.insert(.timeout) }
        }
        return result
    }

    /// Physical newlines are dropped; `\r \n \t \xHH` escapes give the bytes; `...{N × 'c'}...` repeats `c`.
    static func decode(_ block: String) -> [UInt8]? {
        var text = block
        if let range = text.range(of: #"\.\.\.\{[0-9,]+ × '.'\}\.\.\."#, options: .regularExpression) {
            let spec = text[range]
            let digits = spec.filter(\.isNumber)
            guard let count = Int(digits), let quote = spec.firstIndex(of: "'") else { return nil }
            let character = spec[spec.index(after: quote)]
            text.replaceSubrange(range, with: String(repeating: character, count: count))
        }
        guard !text.contains("{"), !text.contains("...") else { return nil }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 0x5C, i + 1 < bytes.count else { out.append(bytes[i]); i += 1; continue }
            switch bytes[i + 1] {
            case 0x72: out.append(13); i += 2
            case 0x6E: out.append(10); i += 2
            case 0x74: out.append(9); i += 2
            case 0x78 where i + 3 < bytes.count:
                guard let value = UInt8(String(decoding: bytes[(i + 2)...(i + 3)], as: UTF8.self), radix: 16) else {
                    return nil
                }
                out.append(value)
                i += 4
            default: out.append(bytes[i]); i += 1
            }
        }
        return out
    }
}
