/// Builds a page in the Prometheus text exposition format, version 0.0.4.
///
/// One `# HELP` and one `# TYPE` line per family, then its samples, one per line:
/// `name{label="value",...} value`. Label values escape `\`, `"` and line feed; HELP text escapes `\` and
/// line feed (the format's only escapes). Names are the caller's constants and are not checked at run time.
package struct MetricsText: Sendable {
    /// The `Content-Type` of a page.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The kinds of metric family the page declares.
    package enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The page so far.
    package private(set) var text = ""

    package init() {}

    /// Starts a family: its `# HELP` and `# TYPE` lines.
    package mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample line with an integer value.
    package mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        appendName(name, labels)
        text += " \(value)\n"
    }

    /// One sample line with a floating-point value (`+Inf`, `-Inf` and `NaN` spelled as the format wants).
    package mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        appendName(name, labels)
        text += " \(Self.format(value))\n"
    }

    /// The samples of one histogram series: a cumulative `_bucket` per bound and `+Inf`, `_sum` and `_count`.
    /// - Parameters:
    ///   - bucketCounts: observations per bucket, not cumulative; one more than `bounds` (the last is `+Inf`).
    ///   - sum: the sum of all observations.
    package mutating func histogram(_ name: String, _ labels: [(String, String)], bounds: [Double], bucketCounts: [Int],
                                   sum: Double) {
        precondition(bucketCounts.count == bounds.count + 1, "one bucket count per bound, plus +Inf")
        var cumulative = 0
        for (index, count) in bucketCounts.enumerated() {
            cumulative += count
            let bound = index < bounds.count ? Self.format(bounds[index]) : "+Inf"
            sample(name + "_bucket", labels + [("le", bound)], cumulative)
        }
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, cumulative)
    }

    private mutating func appendName(_ name: String, _ labels: [(String, String)]) {
        text += name
        guard !labels.isEmpty else { return }
        text += "{"
        for (index, (label, value)) in labels.enumerated() {
            if index > 0 { text += "," }
            text += label
            text += "=\""
            text += Self.escapeLabelValue(value)
            text += "\""
        }
        text += "}"
    }

    /// A label value with `\` as `\\`, `"` as `\"` and line feed as `\n`.
    package static func escapeLabelValue(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// HELP text with `\` as `\\` and line feed as `\n`.
    package static func escapeHelp(_ help: String) -> String {
        var out = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A value as the format spells it: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    package static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
