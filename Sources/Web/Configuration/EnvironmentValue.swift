/// A type an environment variable's text converts to.
package protocol EnvironmentValue {
    init?(environmentValue: String)
    /// What a valid value looks like, for error messages: "an integer".
    static var environmentDescription: String { get }
}

extension String: EnvironmentValue {
    package init?(environmentValue: String) { self = environmentValue }
    package static var environmentDescription: String { "a string" }
}

extension Int: EnvironmentValue {
    package init?(environmentValue: String) { self.init(environmentValue.trimmingSpaces()) }
    package static var environmentDescription: String { "an integer" }
}

extension Double: EnvironmentValue {
    /// Decimal notation only (`10`, `1.5`, `-2`): Swift's own parsing also takes `0x10`, `1e1`, `inf` and `nan`,
    /// which no operator means by a number of seconds.
    package init?(environmentValue: String) {
        let text = environmentValue.trimmingSpaces()
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        self.init(text)
    }
    package static var environmentDescription: String { "a number" }
}

extension Bool: EnvironmentValue {
    /// `true/false`, `1/0`, `yes/no`, `on/off`, any case.
    package init?(environmentValue: String) {
        switch environmentValue.trimmingSpaces().lowercased() {
        case "true", "1", "yes", "on": self = true
        case "false", "0", "no", "off": self = false
        default: return nil
        }
    }
    package static var environmentDescription: String { "a boolean (true or false; also 1/0, yes/no, on/off)" }
}

extension Array: EnvironmentValue where Element: EnvironmentValue {
    /// A comma-separated list; blank items are skipped, and an empty list is refused.
    package init?(environmentValue: String) {
        var items: [Element] = []
        for item in environmentValue.split(separator: ",") {
            let trimmed = String(item).trimmingSpaces()
            if trimmed.isEmpty { continue }
            guard let element = Element(environmentValue: trimmed) else { return nil }
            items.append(element)
        }
        guard !items.isEmpty else { return nil }
        self = items
    }
    package static var environmentDescription: String {
        "a comma-separated list of at least one item (blank items are skipped), each \(Element.environmentDescription)"
    }
}

extension String {
    func trimmingSpaces() -> String { String(self[...].trimmingSpaces()) }
}
