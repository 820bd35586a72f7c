import TestSupport
import Testing
@testable import JSON

struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test func parsesAllValueKinds() throws {
        let value = try parse(#" {"a": [1, -2.5e1, true, false, null], "b": "x\"\\\/\u00e9\ud83d\ude00\n"} "#)
        #expect(value["a"] == [1, -25, true, false, nil])
        #expect(value["b"] == .string("x\"\\/é😀\n"))
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"a":1,}"#, #"[1,]"#, #"{a:1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#,
        #"{"a":+1}"#, #"{"a":"\x"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00x"}"#, "{\"a\":\"\u{1}\"}", #"{"a":1} x"#,
        #"{"a":1}{}"#, "", " ", #"{"a":NaN}"#, #"{"a":1e999}"#, #"'a'"#, #"{"a":tru}"#, #"{"a""#,
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: JSONError.self) { try parse(text) }
    }

    /// The string scan reads eight bytes at a time: a quote, a backslash, a control character or a non-ASCII byte
    /// is found at every offset within and across those words.
    @Test func stringScanFindsEveryEndingByteAtEveryOffset() throws {
        for offset in 0..<20 {
            let before = String(repeating: "a", count: offset)
            #expect(try parse("\"\(before)\"") == .string(before))
            #expect(try parse("\"\(before)\\n\(before)\"") == .string(before + "\n" + before))
            #expect(try parse("\"\(before)é~\u{7F}\"") == .string(before + "é~\u{7F}"))
            for ending in [UInt8](0..<0x20) + [0xff] {
                let bytes = Array("\"\(before)".utf8) + [ending] + Array("aaaaaaaaaaaaaaaa\"".utf8)
                #expect(throws: JSONError.self) { try JSONValue(parsing: bytes) }
            }
        }
    }

    @Test func wordScanFlagsExactlyTheBytesThatEndARun() {
        for byte in 0...255 {
            let ends = byte < 0x20 || byte == 0x22 || byte == 0x5C
            for position in 0..<8 {
                var word: UInt64 = 0x6161_6161_6161_6161
                word &= ~(0xFF << UInt64(8 * position))
                word |= UInt64(byte) << UInt64(8 * position)
                #expect(JSONParser.mayEndRun(word) == ends, "byte \(byte) at \(position)")
            }
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x22, 0xff, 0x22]) }
        #expect(throws: JSONError.self) { try JSONValue(parsing: [0x22, 0xc0, 0xaf, 0x22]) }
    }

    @Test func depthLimitBoundary() throws {
        let limit = JSONParser.maximumDepth
        _ = try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        #expect(throws: JSONError.self) {
            try parse(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
        }
    }

    @Test func serialisesSortedAndCompact() throws {
        let value: JSONValue = ["b": 1, "a": ["x\"\n\u{1}", 1.5, true, nil]]
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"a":["x\"\n\u0001",1.5,true,null],"b":1}"#)
        #expect(try JSONValue(parsing: value.serialized()) == value)
        #expect(String(decoding: JSONValue.number(1_700_000_000).serialized(), as: UTF8.self) == "1700000000")
    }

    @Test func serialisedObjectFromSortedMembersMatchesSerialized() {
        let members: KeyValuePairs<String, JSONValue> = [
            "a": ["x\"\n\u{1}\\/é", 1.5, true, nil], "b": ["c": "d", "a": 2], "e": "", "f": false,
        ]
        let object = JSONValue.object(Dictionary(uniqueKeysWithValues: members.map { ($0.key, $0.value) }))
        #expect(JSONValue.serializedObject(members) == object.serialized())
        #expect(JSONValue.serializedObject([:]) == Array("{}".utf8))
    }
}
