extension JSONValue {
    /// Parses strict JSON (see ``JSONParser``); throws ``JSONError`` on any defect.
    package init(parsing bytes: [UInt8]) throws {
        do {
            self = try JSONParser.parse(bytes)
        } catch {
            throw JSONError(detail: "invalid JSON")
        }
    }

    /// Parses a JSON text as RFC 8259 defines it, for request bodies: strict as ``init(parsing:)`` (no trailing
    /// commas, comments, leading zeros, invalid UTF-8, lone surrogates, nesting past 32), except that an object
    /// may repeat a member name (RFC 8259 §4: names SHOULD be unique), the last one winning.
    /// - Throws: ``JSONError`` on any defect.
    package init(parsingText bytes: [UInt8]) throws {
        do {
            self = try JSONParser.parse(bytes, allowsDuplicateNames: true)
        } catch {
            throw JSONError(detail: "invalid JSON")
        }
    }

    /// What `JSONDecoder` should read of the JSON text `bytes` (see ``init(parsingText:)``): the text itself when
    /// no object in it repeats a member name, else the parsed value written again, which keeps the last of the
    /// repeated members. `JSONDecoder` alone keeps the first, so a proxy or log that reads a repeated `token` the
    /// usual way (the last, as ECMAScript's `JSON.parse` and RFC 7515 §4's reading do) would see another value
    /// than the server's.
    /// - Throws: ``JSONError`` on any defect.
    package static func decoderInput(_ bytes: [UInt8]) throws -> [UInt8] {
        if (try? JSONParser.parse(bytes)) != nil { return bytes }
        return try JSONValue(parsingText: bytes).serialized()
    }

    /// Compact UTF-8 JSON with object members sorted by name, so equal values serialise equally.
    package func serialized() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.initialCapacity)
        write(into: &out)
        return out
    }

    /// Compact UTF-8 JSON of an object with `members` in the order given: `serialized()` of the same object
    /// when they are sorted by name, without building and sorting a dictionary. Names must be unique.
    package static func serializedObject(_ members: KeyValuePairs<String, JSONValue>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(initialCapacity)
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            member.value.write(into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Room reserved up front: the API's answers fit, so they are written without regrowing.
    static let initialCapacity = 256

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let value): out += Array(Self.format(value).utf8)
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, name) in members.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(name, into: &out)
                out.append(UInt8(ascii: ":"))
                members[name]?.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Integers (within ±2^53) print without a fraction, as JWT NumericDates do (RFC 7519 §2).
    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) <= 9_007_199_254_740_992 { return String(Int64(value)) }
        return value.isFinite ? "\(value)" : "null"
    }

    /// RFC 8259 §7: quote, backslash and control characters escaped; everything else literal UTF-8.
    /// Runs of bytes that need no escape are copied whole.
    private static func writeString(_ string: String, into out: inout [UInt8]) {
        var string = string
        out.append(UInt8(ascii: "\""))
        string.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where needsEscape(byte) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), byte])
                case 0x0a: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0d: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
