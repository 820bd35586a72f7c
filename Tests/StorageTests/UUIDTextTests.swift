import Foundation
import Testing
@testable import Storage

/// `UUID.text(uppercase:)` and `UUID(text:)` agree with Foundation's `uuidString` and `UUID(uuidString:)` on
/// canonical text; `UUID(text:)` refuses every malformed form.
struct UUIDTextTests {
    @Test func formatsLikeUUIDString() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(id.text(uppercase: true) == id.uuidString)
            #expect(id.text(uppercase: false) == id.uuidString.lowercased())
        }
        let edge = UUID(uuid: (0, 0x0f, 0xf0, 0xff, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 0xff))
        #expect(edge.text(uppercase: false) == "000ff0ff-1234-5678-9abc-def0010203ff")
    }

    @Test func parsesWhatUUIDStringParses() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.uuidString.lowercased()) == id)
        }
        #expect(UUID(text: "000fF0ff-1234-5678-9ABC-def0010203ff") == UUID(uuidString: "000fF0ff-1234-5678-9ABC-def0010203ff"))
    }

    @Test(arguments: [
        "", "000ff0ff-1234-5678-9abc-def0010203f", "000ff0ff-1234-5678-9abc-def0010203fff",
        "000ff0ff-1234-5678-9abc-def0010203fg", "000ff0ff+1234-5678-9abc-def0010203ff",
        "000ff0ff-1234-5678-9abc-def0010203f-", "000ff0ff11234-5678-9abc-def0010203ff",
        "000ff0ff-1234-5678-9abc-def0010203fé", " 00ff0ff-1234-5678-9abc-def0010203ff",
        "000ff0ff-1234-5678-9abcddef0010203ff", "000ff0ff-1234-5678-9abc-def0-10203ff",
    ])
    func refusesMalformedText(text: String) {
        #expect(UUID(text: text) == nil)
    }
}
