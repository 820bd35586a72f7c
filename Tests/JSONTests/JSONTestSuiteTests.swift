import Foundation
import TestSupport
import Testing
@testable import JSON

/// Nicolas Seriot's JSONTestSuite (`../shared/vectors/jsontestsuite`, see its SOURCE.txt) through the parser every
/// JSON request body passes, `JSONValue(parsingText:)`: every `y_` case accepted, every `n_` case refused, and each
/// implementation-defined `i_` case doing what ``implementationDefined`` writes down.
@Suite(.vectors("jsontestsuite"))
struct JSONTestSuiteTests {
    /// The test files whose names start with `prefix`, with their bytes.
    static func cases(_ prefix: String) throws -> [(name: String, bytes: [UInt8])] {
        guard let folder = TestVectors.folder("jsontestsuite") else { return [] }
        let directory = folder.appendingPathComponent("test_parsing")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
            .map { ($0, try Self.bytes(of: directory.appendingPathComponent($0).path)) }
    }

    /// A file's bytes with open/read: FoundationEssentials' `Data(contentsOf:)` leaks its buffer for an empty file
    /// (LeakSanitizer found it on `n_structure_no_data.json`).
    static func bytes(of path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }

    static func accepts(_ bytes: [UInt8]) -> Bool { (try? JSONValue(parsingText: bytes)) != nil }

    @Test func everyYCaseIsAccepted() throws {
        let cases = try Self.cases("y_")
        #expect(cases.count == 95)
        for (name, bytes) in cases { #expect(Self.accepts(bytes), "\(name)") }
    }

    @Test func everyNCaseIsRefused() throws {
        let cases = try Self.cases("n_")
        #expect(cases.count == 188)
        for (name, bytes) in cases { #expect(!Self.accepts(bytes), "\(name)") }
    }

    /// What the parser does with each `i_` case: true accepted, false refused (a body then gets 400).
    /// Numbers are IEEE doubles: an integer past 2^53 or an underflow is accepted and rounded (to 0 for the
    /// underflows); an overflow to infinity is refused. Strings must be UTF-8 (RFC 8259 §8.1) with paired
    /// surrogate escapes, so every invalid sequence, lone surrogate, Latin-1 or UTF-16 text is refused. A byte
    /// order mark is refused (§8.1: senders MUST NOT add one), and so is nesting past 32 levels.
    static let implementationDefined: [String: Bool] = [
        "i_number_double_huge_neg_exp.json": true,
        "i_number_huge_exp.json": false,
        "i_number_neg_int_huge_exp.json": false,
        "i_number_pos_double_huge_exp.json": false,
        "i_number_real_neg_overflow.json": false,
        "i_number_real_pos_overflow.json": false,
        "i_number_real_underflow.json": true,
        "i_number_too_big_neg_int.json": true,
        "i_number_too_big_pos_int.json": true,
        "i_number_very_big_negative_int.json": true,
        "i_object_key_lone_2nd_surrogate.json": false,
        "i_string_1st_surrogate_but_2nd_missing.json": false,
        "i_string_1st_valid_surrogate_2nd_invalid.json": false,
        "i_string_UTF-16LE_with_BOM.json": false,
        "i_string_UTF-8_invalid_sequence.json": false,
        "i_string_UTF8_surrogate_U+D800.json": false,
        "i_string_incomplete_surrogate_and_escape_valid.json": false,
        "i_string_incomplete_surrogate_pair.json": false,
        "i_string_incomplete_surrogates_escape_valid.json": false,
        "i_string_invalid_lonely_surrogate.json": false,
        "i_string_invalid_surrogate.json": false,
        "i_string_invalid_utf-8.json": false,
        "i_string_inverted_surrogates_U+1D11E.json": false,
        "i_string_iso_latin_1.json": false,
        "i_string_lone_second_surrogate.json": false,
        "i_string_lone_utf8_continuation_byte.json": false,
        "i_string_not_in_unicode_range.json": false,
        "i_string_overlong_sequence_2_bytes.json": false,
        "i_string_overlong_sequence_6_bytes.json": false,
        "i_string_overlong_sequence_6_bytes_null.json": false,
        "i_string_truncated-utf-8.json": false,
        "i_string_utf16BE_no_BOM.json": false,
        "i_string_utf16LE_no_BOM.json": false,
        "i_structure_500_nested_arrays.json": false,
        "i_structure_UTF-8_BOM_empty_object.json": false,
    ]

    @Test func implementationDefinedCasesDoWhatTheTableSays() throws {
        let cases = try Self.cases("i_")
        #expect(cases.count == 35)
        #expect(Set(cases.map(\.name)) == Set(Self.implementationDefined.keys))
        for (name, bytes) in cases { #expect(Self.accepts(bytes) == Self.implementationDefined[name], "\(name)") }
    }

    /// JOSE headers and claims stay stricter than bodies: a repeated member name is refused there.
    @Test func duplicateNamesAreAcceptedInBodiesOnly() throws {
        let text = Array(#"{"a":"b","a":"c"}"#.utf8)
        #expect(try JSONValue(parsingText: text)["a"] == .string("c"))
        #expect(throws: JSONError.self) { try JSONValue(parsing: text) }
        #expect(throws: JSONError.self) { try JSONValue.parseObjectMembers(text) }
    }

    /// The duplicate check of the sign-in fast path, past the linear-scan limit: still refused, in linear time.
    @Test func duplicateNamesInALargeObjectAreRefused() throws {
        let count = JSONParser.linearDuplicateScanLimit + 1
        let members = (0..<count).map { #""m\#($0)":0"# }
        let unique = Array(("{" + members.joined(separator: ",") + "}").utf8)
        #expect(try JSONValue.parseObjectMembers(unique).count == count)
        let repeated = Array(("{" + members.joined(separator: ",") + #","m0":1}"#).utf8)
        #expect(throws: JSONError.self) { try JSONValue.parseObjectMembers(repeated) }
    }

    /// Nesting stays bounded for bodies too: 100,000 opening brackets are refused, without a crash.
    @Test func deepNestingIsRefusedWithoutACrash() {
        #expect(!Self.accepts(Array(repeating: UInt8(ascii: "["), count: 100_000)))
        let limit = JSONParser.maximumDepth
        #expect(Self.accepts(Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)))
        #expect(!Self.accepts(Array((String(repeating: "[", count: limit + 1)
            + String(repeating: "]", count: limit + 1)).utf8)))
    }
}
