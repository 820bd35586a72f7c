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
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        if case .integer(let v) = value { return v != 0 }
        return nil
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
    public var databaseValue: DatabaseValue { .text(text(uppercase: false)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UUID? {
        if case .text(let v) = value { return UUID(text: v) }
        return nil
    }
}

extension Date: DatabaseValueConvertible {
    /// Whole milliseconds since 1970-01-01 UTC, rounded down; clamped to `Int64`'s range (NaN reads as 0).
    public var databaseValue: DatabaseValue {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded(.down)
        if milliseconds.isNaN { return .integer(0) }
        if milliseconds >= 0x1p63 { return .integer(.max) }
        if milliseconds < -0x1p63 { return .integer(.min) }
        return .integer(Int64(milliseconds))
    }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        if case .integer(let v) = value { return Date(timeIntervalSince1970: Double(v) / 1000) }
        return nil
    }
}
