import Testing
@testable import Web

/// `MediaType.essence(of:)` reads ASCII values on their bytes and gives what the character walk gives.
struct MediaTypeTests {
    /// The character walk `essence(of:)` uses for values with non-ASCII bytes.
    static func walked(_ value: String) -> String? {
        let essence = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() } ?? ""
        return essence.isEmpty ? nil : essence
    }

    @Test(arguments: [
        "application/json", "Application/JSON; charset=utf-8", " \ttext/html ;q=1", "application/problem+json",
        ";charset=utf-8", "", "   ", "\t;", "a/b;c;d", "TEXT/Plain\t", "x", "application/json\r\n",
        ";;x/y; z", " ;x",
    ])
    func asciiValuesReadAsTheCharacterWalkReadsThem(value: String) {
        #expect(MediaType.essence(of: value) == Self.walked(value))
    }

    @Test func nonASCIIValuesKeepTheCharacterWalk() {
        #expect(MediaType.essence(of: "TÉXT/Plain; x") == "téxt/plain")
        #expect(MediaType.essence(of: nil) == nil)
    }
}
