import Foundation

/// One strict-mode request case from llhttp's markdown tests (test/request/*.md).
struct LLHTTPCase: CustomStringConvertible, Sendable {
    struct Message: Equatable, Sendable {
        var method = ""
        var url = ""
        var headers: [String] = []
        var body: [UInt8] = []
    }

    var file: String
    var title: String
    var input: [UInt8]
    /// The log's last line: `message complete`, `error code=N reason="..."`, or something else (pause).
    var outcome: String
    var messages: [Message]

    var description: String { "\(file): \(title)" }
    var accepted: Bool { outcome == "message complete" }
    var errorCode: Int? {
        guard outcome.hasPrefix("error code=") else { return nil }
        return Int(outcome.dropFirst("error code=".count).prefix { $0.isNumber })
    }

    /// Every case whose meta type is exactly `request` (llhttp's strict default), skipping `${...}` inputs.
    static func load(from folder: URL) throws -> [LLHTTPCase] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        var cases: [LLHTTPCase] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            var title = ""
            var i = 0
            while i < lines.count {
                let line = lines[i]
                if line.hasPrefix("#") { title = line.trimmingCharacters(in: CharacterSet(charactersIn: "# ")) }
                guard line.hasPrefix("<!-- meta="), let type = metaType(line), type == "request",
                      !line.contains("skipBody") else {
                    i += 1
                    continue
                }
                var j = i + 1
                while j < lines.count, lines[j] != "```http" { j += 1 }
                var block: [String] = []
                j += 1
                while j < lines.count, lines[j] != "```" { block.append(lines[j]); j += 1 }
                while j < lines.count, lines[j] != "```log" { j += 1 }
                var log: [String] = []
                j += 1
                while j < lines.count, lines[j] != "```" { log.append(lines[j]); j += 1 }
                i = j + 1
                let raw = block.joined(separator: "\n")
                guard !raw.contains("${") else { continue }
                cases.append(LLHTTPCase(file: file, title: title, input: decode(raw),
                                        outcome: outcome(log), messages: messages(log)))
            }
        }
        return cases
    }

    static func metaType(_ line: String) -> String? {
        guard let range = line.range(of: "\"type\"") else { return nil }
        let rest = line[range.upperBound...].drop { $0 == ":" || $0 == " " || $0 == "\"" }
        return String(rest.prefix { $0 != "\"" })
    }

    static func outcome(_ log: [String]) -> String {
        guard let last = log.last(where: { !$0.isEmpty }) else { return "" }
        guard last.hasPrefix("off="), let space = last.firstIndex(of: " ") else { return last }
        return String(last[last.index(after: space)...])
    }

    /// Decoding rule of llhttp's test/md-test.ts: drop one trailing newline, join backslash-newline,
    /// newline -> CRLF, then \r \n \t \f \xHH \NNN escapes.
    static func decode(_ raw: String) -> [UInt8] {
        var text = raw.replacingOccurrences(of: "\\\n", with: "")
        text = text.replacingOccurrences(of: "\n", with: "\r\n")
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 0x5C, i + 1 < bytes.count else { out.append(bytes[i]); i += 1; continue }
            switch bytes[i + 1] {
            case 0x72: out.append(13); i += 2
            case 0x6E: out.append(10); i += 2
            case 0x74: out.append(9); i += 2
            case 0x66: out.append(12); i += 2
            case 0x78 where i + 3 < bytes.count:
                out.append(UInt8(String(decoding: bytes[(i + 2)...(i + 3)], as: UTF8.self), radix: 16) ?? 0)
                i += 4
            case 0x30...0x37:
                var j = i + 1
                var value = 0
                while j < bytes.count, j < i + 4, (0x30...0x37).contains(bytes[j]) { value = value * 8 + Int(bytes[j] - 0x30); j += 1 }
                out.append(UInt8(value & 0xFF))
                i = j
            default:
                out.append(bytes[i]); i += 1
            }
        }
        return out
    }

    /// The spans of each message in the log.
    static func messages(_ log: [String]) -> [Message] {
        var result: [Message] = []
        var current: Message?
        var pendingField: String?
        for line in log {
            if line.hasSuffix("message begin") {
                if let current { result.append(current) }
                current = Message()
                continue
            }
            guard let spanRange = line.range(of: "span["), let close = line.range(of: "]=\"") else { continue }
            let kind = String(line[spanRange.upperBound..<close.lowerBound])
            let value = unescape(String(line[close.upperBound...].dropLast()))
            switch kind {
            case "method": current?.method += value
            case "url": current?.url += value
            case "header_field": pendingField = (pendingField ?? "") + value
            case "header_value":
                if let field = pendingField {
                    current?.headers.append("\(field.lowercased()): \(value.trimmingCharacters(in: .whitespaces))")
                    pendingField = nil
                } else if var last = current?.headers.popLast() {
                    last += value
                    current?.headers.append(last)
                }
            case "body": current?.body += Array(value.utf8)
            default: break
            }
        }
        if let current { result.append(current) }
        return result
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\r", with: "\r").replacingOccurrences(of: "\\n", with: "\n")
            .replacingOccurrences(of: "\\t", with: "\t")
    }
}
