import Foundation
import Testing
@testable import App

/// `PersonName` trims ASCII names on their bytes exactly as `trimmingCharacters(in: .whitespacesAndNewlines)` does.
struct PersonNameTests {
    @Test(arguments: [
        "Bench User", "  Ada Lovelace \n", "\t\r\n\u{0B}\u{0C} x \u{0C}", "", "   ", "a", " \u{1F}b\u{1F} ", "Grace  Hopper",
    ])
    func asciiNamesTrimLikeFoundation(name: String) {
        #expect(PersonName(fullName: name).fullName == name.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(PersonName.trimmedASCII(name) == name.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func otherNamesUseFoundation() {
        #expect(PersonName.trimmedASCII("\u{A0}José\u{2003}") == nil)
        #expect(PersonName(fullName: "\u{A0}José\u{2003}").fullName == "José")
    }
}
