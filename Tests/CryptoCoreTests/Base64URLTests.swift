import TestSupport
import Testing
@testable import CryptoCore

struct Base64URLTests {
    @Test(arguments: [
        ("", []), ("Zg", [0x66]), ("Zm8", [0x66, 0x6f]), ("Zm9v", [0x66, 0x6f, 0x6f]),
        ("-_8", [0xfb, 0xff]), ("_-8", [0xff, 0xef]), ("_-A", [0xff, 0xe0]),
    ] as [(String, [UInt8])])
    func roundTrips(_ text: String, _ bytes: [UInt8]) {
        #expect(Base64URL.encode(bytes) == text)
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test func roundTripsEveryLength() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test(arguments: ["Zg==", "Zm8=", "Zg=", "Zm9v===="])
    func rejectsPadding(_ text: String) { #expect(Base64URL.decode(text) == nil) }

    @Test(arguments: ["+_8", "-/8", "ab+c", "ab/c"])
    func rejectsStandardAlphabet(_ text: String) { #expect(Base64URL.decode(text) == nil) }

    @Test(arguments: ["Zm 9v", " Zm9v", "Zm9v\n", "Zm9v\r\n", "\tZm9v", "Zm9v "])
    func rejectsWhitespace(_ text: String) { #expect(Base64URL.decode(text) == nil) }

    @Test(arguments: ["Z", "Zm9vY", "Zm9vYmFyY"])
    func rejectsLengthOneModFour(_ text: String) { #expect(Base64URL.decode(text) == nil) }

    /// RFC 4648 §3.5: the unused low bits of the last character must be zero.
    @Test(arguments: ["Zh", "Zm9", "Zm-", "Zx", "Zm_"])
    func rejectsNonCanonicalTrailingBits(_ text: String) { #expect(Base64URL.decode(text) == nil) }

    @Test(arguments: ["Zm9v.", "Zm9\u{0}", "Zm9é", "Zm9v!"])
    func rejectsOtherCharacters(_ text: String) { #expect(Base64URL.decode(text) == nil) }
}
