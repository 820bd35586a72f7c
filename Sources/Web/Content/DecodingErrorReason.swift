/// Turns a `DecodingError` into a reason a client can act on, naming the field: `Missing field 'token'`.
enum DecodingErrorReason {
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "Missing field '\(path(context.codingPath + [key]))'"
        case .valueNotFound(let type, let context):
            if context.codingPath.isEmpty { return "Request body must be \(typeName(type))" }
            return "Field '\(path(context.codingPath))' must not be null"
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty { return "Request body must be \(typeName(type))" }
            return "Field '\(path(context.codingPath))' must be \(typeName(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "Malformed request body" }
            return "Field '\(path(context.codingPath))' is invalid"
        @unknown default:
            return "Malformed request body"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        var result = ""
        for key in keys {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                result += "[\(index)]"
            } else {
                result += (result.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return result
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
             is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") || (name.hasPrefix("[") && !name.contains(":")) { return "an array" }
            if name.hasPrefix("Dictionary<") || name.hasPrefix("[") { return "an object" }
            return "a valid \(name)"
        }
    }
}
