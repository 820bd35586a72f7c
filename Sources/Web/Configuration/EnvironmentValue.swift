/// A type an environment variable's text converts to.
public protocol EnvironmentValue {
    init?(environmentValue: String)
    /// What a valid value looks like, for error messages: "an integer".
    static var environmentDescription: String { get }
}

extension String: EnvironmentValue {
    public init?(environmentValue: String) { self = environmentValue }
    public static var environmentDescription: String { "a string" }
}

extension Int: EnvironmentValue {
    public init?(environmentValue: String) { self.init(environmentValue.trimmingSpaces()) }
    public static var environmentDescription: String { "an integer" }
}

extension Double: EnvironmentValue {
    public init?(environmentValue: String) { self.init(environmentValue.trimmingSpaces()) }
    public static var environmentDescription: String { "a number" }
}

extension Bool: EnvironmentValue {
    /// `true/false`, `1/0`, `yes/no`, `on/off`, any case.
    public init?(environmentValue: String) {
        switch environmentValue.trimmingSpaces().lowercased() {
        case "true", "1", "yes", "on": self = true
        case "false", "0", "no", "off": self = false
        default: return nil
        }
    }
    public static var environmentDescription: String { "a boolean (true or false)" }
}

extension Array: EnvironmentValue where Element: EnvironmentValue {
    /// A comma-separated list; blank items are skipped, and an empty list is refused.
    public init?(environmentValue: String) {
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
    public static var environmentDescription: String { "a comma-separated list, each \(Element.environmentDescription)" }
}

extension String {
    func trimmingSpaces() -> String { String(self[...].trimmingSpaces()) }
}
