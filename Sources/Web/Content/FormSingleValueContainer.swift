/// One form field's text, converted to the primitive a `Decodable` asks for.
struct FormSingleValueContainer: SingleValueDecodingContainer {
    let value: String?
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == nil }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let primitive = try decodePrimitive(type) { return primitive }
        return try T(from: FormFieldDecoder(fields: [:], prefix: nil, codingPath: codingPath))
    }

    /// The value as `T` when `T` is a primitive the form knows; nil for other types.
    func decodePrimitive<T>(_ type: T.Type) throws -> T? {
        switch type {
        case is String.Type: return try text() as? T
        case is Bool.Type: return try parse(Self.bool) as? T
        case is Int.Type: return try parse { Int($0) } as? T
        case is Int64.Type: return try parse { Int64($0) } as? T
        case is Int32.Type: return try parse { Int32($0) } as? T
        case is UInt.Type: return try parse { UInt($0) } as? T
        case is UInt64.Type: return try parse { UInt64($0) } as? T
        case is Double.Type: return try parse { Double($0) } as? T
        case is Float.Type: return try parse { Float($0) } as? T
        default: return nil
        }
    }

    private func text() throws -> String {
        guard let value else {
            throw DecodingError.valueNotFound(String.self, .init(codingPath: codingPath, debugDescription: "No value"))
        }
        return value
    }

    private func parse<T>(_ convert: (String) -> T?) throws -> T {
        guard let result = convert(try text()) else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "Cannot convert"))
        }
        return result
    }

    private static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "on", "1", "yes": true
        case "false", "off", "0", "no": false
        default: nil
        }
    }
}
