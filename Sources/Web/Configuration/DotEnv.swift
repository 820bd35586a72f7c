import Foundation

/// A `.env` file: `KEY=VALUE` lines, `#` comments, optional `export ` prefix, single quotes (literal) or double
/// quotes (with `\n`, `\t`, `\"`, `\\` escapes); an unquoted value ends at ` #`, and is trimmed.
package enum DotEnv {
    /// The assignments in `text`, in order; later ones win when read into a dictionary.
    /// - Throws: `ConfigurationError.malformedDotEnv` naming the line.
    package static func parse(_ text: String) throws -> [(key: String, value: String)] {
        try assignments(text).map { ($0.key, $0.value) }
    }

    /// The assignments in `text`, in order, with the number of the line of each.
    static func assignments(_ text: String) throws -> [(key: String, value: String, line: Int)] {
        var result: [(key: String, value: String, line: Int)] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            var line = rawLine.trimmingCharacters(in: .whitespaces)[...]
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst("export ".count).drop { $0 == " " } }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError.malformedDotEnv(line: number, message: "expected KEY=VALUE")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard isValidKey(key) else {
                throw ConfigurationError.malformedDotEnv(line: number, message: "invalid variable name")
            }
            let value = try parseValue(line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }, line: number)
            result.append((key, value, number))
        }
        return result
    }

    /// The variables of the file at `path` (later assignments win); empty when there is nothing at `path`. The file
    /// may be a pipe or a device (`--env-file <(vault …)`, `/dev/null`): it is read to its end. An error names it,
    /// also a symbolic link to nothing (a secrets volume not mounted), which would otherwise start the server on
    /// the defaults without a word (found by a review).
    package static func load(path: String = ".env") throws -> [String: String] {
        try read(path: path).values
    }

    /// What `load` reads, and the variables the file sets more than once, with the lines of each: the last one
    /// counts, and a start can say so (found by a review: a stale line left above an edit was taken silently, or
    /// hid the edit when it came after).
    package static func read(path: String = ".env") throws -> (values: [String: String], repeated: [String: [Int]]) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                throw ConfigurationError.malformedDotEnv(
                    line: 0, message: "is a symbolic link to \(target), which does not exist", file: path)
            }
            return ([:], [:])
        }
        guard !isFolder.boolValue else {
            throw ConfigurationError.malformedDotEnv(line: 0, message: "is a folder, not a file", file: path)
        }
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            throw ConfigurationError.malformedDotEnv(line: 0, message: "cannot be read (check its permissions)",
                                                     file: path)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError.malformedDotEnv(line: 0, message: "is not UTF-8 text", file: path)
        }
        try? handle.close()
        var values: [String: String] = [:]
        var lines: [String: [Int]] = [:]
        do {
            for (key, value, line) in try assignments(text) {
                values[key] = value
                lines[key, default: []].append(line)
            }
        } catch ConfigurationError.malformedDotEnv(let line, let message, _) {
            throw ConfigurationError.malformedDotEnv(line: line, message: message, file: path)
        }
        return (values, lines.filter { $0.value.count > 1 })
    }

    static func isValidKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return key.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0 == "." || $0.properties.isAlphabetic
            || ("0"..."9").contains($0)) }
    }

    private static func parseValue(_ text: Substring, line: Int) throws -> String {
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            var value = text
            if let comment = value.range(of: " #") ?? value.range(of: "\t#") { value = value[..<comment.lowerBound] }
            return value.trimmingCharacters(in: .whitespaces)
        }
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == quote {
                let rest = text[text.index(after: index)...].trimmingCharacters(in: .whitespaces)
                guard rest.isEmpty || rest.hasPrefix("#") else {
                    throw ConfigurationError.malformedDotEnv(line: line, message: "unexpected text after the closing quote")
                }
                return value
            }
            if quote == "\"", character == "\\", text.index(after: index) < text.endIndex {
                index = text.index(after: index)
                switch text[index] {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                default: value.append(text[index])
                }
            } else {
                value.append(character)
            }
            index = text.index(after: index)
        }
        throw ConfigurationError.malformedDotEnv(line: line, message: "unterminated quote")
    }
}
