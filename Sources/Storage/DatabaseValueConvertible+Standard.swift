import Foundation

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        if case .integer(let v) = value { return v }
        return nil
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        if case .integer(let v) = value { return Int(exactly: v) }
        return nil
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .bool(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .bool(let v): v
        case .integer(let v): v != 0
        default: nil
        }
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let v) = value { return v }
        return nil
    }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { .blob(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        if case .blob(let v) = value { return v }
        return nil
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob([UInt8](self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        if case .blob(let v) = value { return Data(v) }
        return nil
    }
}

extension UUID: DatabaseValueConvertible {
    /// Lowercase text, the form RFC 9562 section 4 recommends for output.
    public var databaseValue: DatabaseValue { .uuid(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UUID? {
        switch value {
        case .uuid(let v): v
        case .text(let v): UUID(text: v)
        default: nil
        }
    }
}

extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .timestamp(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        switch value {
        case .timestamp(let v): v
        case .integer(let v): Date(timeIntervalSince1970: Double(v) / 1000)
        default: nil
        }
    }
}
