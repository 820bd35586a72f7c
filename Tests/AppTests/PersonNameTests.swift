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

    /// What is stored: no control characters, at most 200 code points (JSON Schema's `maxLength`), cut at a
    /// character's end.
    @Test(arguments: [
        ("Ada Lovelace", "Ada Lovelace"),
        ("Ada\u{7}\u{1B}[31m Love\u{0}lace\u{85}", "Ada[31m Lovelace"),
        (String(repeating: "a", count: 201), String(repeating: "a", count: 200)),
        (String(repeating: "é", count: 200), String(repeating: "é", count: 200)),
        (String(repeating: "👩‍👩‍👧‍👦", count: 40), String(repeating: "👩‍👩‍👧‍👦", count: 28)),
        (String(repeating: "e\u{301}", count: 250), String(repeating: "e\u{301}", count: 100)),
        ("e" + String(repeating: "\u{301}", count: 250_000), ""),
        ("Zoë e" + String(repeating: "\u{301}", count: 1_000), "Zoë "),
    ])
    func storedNamesAreBoundedInCodePoints(_ input: String, _ stored: String) {
        let name = PersonName(fullName: input).stored
        #expect(name == stored)
        #expect(name.unicodeScalars.count <= PersonName.maximumLength && name.utf8.count <= 4 * PersonName.maximumLength)
    }

    /// The bidirectional formatting characters are not stored: `\u{202E}nimda` would show as "admin" on the pages
    /// and in `siwa users show`. Found by a review. Letters of right-to-left scripts stay.
    @Test(arguments: [
        ("\u{202E}nimda", "nimda"), ("\u{2066}x\u{2069} y\u{200F}", "x y"), ("a\u{061C}b\u{202A}c\u{202C}", "abc"),
        ("שלום עולם", "שלום עולם"), ("مرحبا", "مرحبا"),
    ])
    func bidirectionalControlsAreNotStored(_ input: String, _ stored: String) {
        #expect(PersonName(fullName: input).stored == stored)
    }
}
