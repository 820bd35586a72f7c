extension JSONValue {
    /// Parses strict JSON (see ``JSONParser``); throws ``JWTError`` `.malformed` on any defect.
    public init(parsing bytes: [UInt8]) throws {
        do {
            self = try JSONParser.parse(bytes)
        } catch {
            throw JWTError(.malformed, detail: "invalid JSON")
        }
    }

    /// Compact UTF-8 JSON with object members sorted by name, so equal values serialise equally.
    public func serialized() -> [UInt8] {
        var out = [UInt8]()
        write(into: &out)
        return out
    }

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
    private static func writeString(_ string: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0a: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0d: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
