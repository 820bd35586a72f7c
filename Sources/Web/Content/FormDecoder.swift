/// Decodes `Decodable` values from form fields (`application/x-www-form-urlencoded`, query strings).
///
/// Nested structs use bracket keys: `user[name]=Jane` fills `user.name`. Supports strings, integers,
/// floating-point numbers, booleans (`true/false`, `on/off`, `1/0`, `yes/no`), optionals (an empty field is nil)
/// and `RawRepresentable` enums; arrays are not supported. The first value of a repeated name wins.
package struct FormDecoder: Sendable {
    package init() {}

    /// Decodes `T` from `fields`, name to first value.
    package func decode<T: Decodable>(_ type: T.Type, from fields: [String: String]) throws -> T {
        try T(from: FormFieldDecoder(fields: fields, prefix: nil, codingPath: []))
    }
}

/// The `Decoder` for one level of a form: `prefix` is the bracketed name of the struct being decoded.
struct FormFieldDecoder: Decoder {
    let fields: [String: String]
    let prefix: String?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func fieldName(_ key: any CodingKey) -> String {
        prefix.map { "\($0)[\(key.stringValue)]" } ?? key.stringValue
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let prefix, fields[prefix] != nil {
            throw DecodingError.typeMismatch([String: String].self,
                                             .init(codingPath: codingPath, debugDescription: "Expected nested fields"))
        }
        return KeyedDecodingContainer(FormKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([String].self,
                                         .init(codingPath: codingPath, debugDescription: "Form arrays are not supported"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        FormSingleValueContainer(value: prefix.flatMap { fields[$0] }, codingPath: codingPath)
    }
}

struct FormKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FormFieldDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var names: Set<String> = []
        let start = decoder.prefix.map { $0 + "[" } ?? ""
        for name in decoder.fields.keys where name.hasPrefix(start) {
            let rest = name.dropFirst(start.count)
            let end = decoder.prefix == nil ? rest.firstIndex(of: "[") : rest.firstIndex(of: "]")
            names.insert(String(rest[..<(end ?? rest.endIndex)]))
        }
        return names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        let name = decoder.fieldName(key)
        return decoder.fields[name] != nil || decoder.fields.keys.contains { $0.hasPrefix(name + "[") }
    }

    /// Absent and empty fields are nil for optionals: browsers send empty text inputs as `name=`.
    func decodeNil(forKey key: Key) throws -> Bool {
        !contains(key) || decoder.fields[decoder.fieldName(key)] == ""
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard contains(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No field"))
        }
        let nested = FormFieldDecoder(fields: decoder.fields, prefix: decoder.fieldName(key), codingPath: codingPath + [key])
        if let value = decoder.fields[decoder.fieldName(key)],
           let primitive = try FormSingleValueContainer(value: value, codingPath: nested.codingPath).decodePrimitive(T.self) {
            return primitive
        }
        return try T(from: nested)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try FormFieldDecoder(fields: decoder.fields, prefix: decoder.fieldName(key), codingPath: codingPath + [key])
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try FormFieldDecoder(fields: decoder.fields, prefix: decoder.fieldName(key), codingPath: codingPath + [key])
            .unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        FormFieldDecoder(fields: decoder.fields, prefix: decoder.fieldName(key), codingPath: codingPath + [key])
    }
}
