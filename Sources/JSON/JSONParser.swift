/// A strict RFC 8259 JSON parser for small, untrusted documents (JOSE headers, JWT claims, JWKS, request bodies).
///
/// Refuses nesting deeper than ``maximumDepth``, invalid UTF-8, unescaped control characters, lone surrogates,
/// and trailing bytes after the value; and duplicate member names unless `allowsDuplicateNames` (RFC 8259 §4
/// only says names SHOULD be unique; RFC 7515 §4 and RFC 7519 §4 let JOSE refuse them, and it does).
struct JSONParser {
    /// Deepest nesting of arrays and objects accepted.
    static let maximumDepth = 32

    struct Failure: Error, Equatable {}

    /// Objects with more members than this find duplicate names with a set rather than by comparison.
    static let linearDuplicateScanLimit = 16

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0
    private let allowsDuplicateNames: Bool

    private init(_ bytes: UnsafeBufferPointer<UInt8>, allowsDuplicateNames: Bool = false) {
        self.bytes = bytes
        self.allowsDuplicateNames = allowsDuplicateNames
    }

    /// Parses exactly one JSON value filling all of `input` (surrounding whitespace allowed); with
    /// `allowsDuplicateNames`, the last of several members with one name wins.
    static func parse(_ input: [UInt8], allowsDuplicateNames: Bool = false) throws -> JSONValue {
        try input.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, allowsDuplicateNames: allowsDuplicateNames)
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw Failure() }
            return value
        }
    }

    /// Parses exactly one top-level JSON object into its members, in order, refusing duplicates.
    static func parseObjectMembers(_ input: [UInt8]) throws -> [JSONMember] {
        try input.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            parser.skipWhitespace()
            guard parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "{") else { throw Failure() }
            let members = try parser.parseMembers()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw Failure() }
            return members
        }
    }

    /// An object's members after its `{`; duplicates refused (RFC 7515 §4, strict), found by comparison in a
    /// small object and with a set past ``linearDuplicateScanLimit`` members, so a large body costs linear time.
    private mutating func parseMembers() throws -> [JSONMember] {
        try enter()
        var members: [JSONMember] = []
        members.reserveCapacity(16)
        var names: Set<String> = []
        if leave(empty: UInt8(ascii: "}")) { return members }
        while true {
            let name = try parseMemberName()
            if members.count < Self.linearDuplicateScanLimit {
                let length = name.utf8.count
                for member in members where member.name.utf8.count == length && member.name == name { throw Failure() }
            } else {
                if names.isEmpty { names = Set(members.map(\.name)) }
                guard names.insert(name).inserted else { throw Failure() }
            }
            members.append(JSONMember(name: name, value: try parseValue()))
            if try leave(after: UInt8(ascii: "}")) { return members }
        }
    }

    /// A member's name and the `:` after it, with the white space around it: the parser stands at the value.
    private mutating func parseMemberName() throws -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Failure() }
        let name = try parseString()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Failure() }
        index += 1
        skipWhitespace()
        return name
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw Failure() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return .number(try parseNumber())
        }
    }

    private mutating func expect(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Failure() }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { throw Failure() }
        index += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw Failure() }
        index += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(16)
        if leave(empty: UInt8(ascii: "}")) { return .object(members) }
        while true {
            let name = try parseMemberName()
            let value = try parseValue()
            guard members.updateValue(value, forKey: name) == nil || allowsDuplicateNames else { throw Failure() }
            if try leave(after: UInt8(ascii: "}")) { return .object(members) }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        if leave(empty: UInt8(ascii: "]")) { return .array(elements) }
        while true {
            elements.append(try parseValue())
            if try leave(after: UInt8(ascii: "]")) { return .array(elements) }
        }
    }

    /// At the start of an object or array (past `{` or `[` and white space): steps past `closer` and leaves the
    /// container when it is empty.
    private mutating func leave(empty closer: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == closer else { return false }
        index += 1; depth -= 1
        return true
    }

    /// After a member or element: steps past `,` and the white space after it (false: another one follows), or
    /// past `closer`, leaving the container (true); anything else is malformed.
    private mutating func leave(after closer: UInt8) throws -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw Failure() }
        if bytes[index] == UInt8(ascii: ",") { index += 1; skipWhitespace(); return false }
        guard bytes[index] == closer else { throw Failure() }
        index += 1; depth -= 1
        return true
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws -> Double {
        let start = index
        var isInteger = true
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw Failure() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw Failure() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            isInteger = false
            guard digits() > 0 else { throw Failure() }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            isInteger = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Failure() }
        }
        if isInteger, index - start <= 15 {
            var value: Int64 = 0
            for byte in bytes[start..<index] where byte != UInt8(ascii: "-") { value = value * 10 + Int64(byte - 0x30) }
            return Double(bytes[start] == UInt8(ascii: "-") ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Failure() }
        return value
    }
}
