import Foundation

/// One value bound to a statement or read from a row: SQLite's five storage classes
/// (https://sqlite.org/datatype3.html) and the three types PostgreSQL keeps apart from them (`boolean`, `uuid`,
/// `timestamptz`). Each engine stores the last three its own way: SQLite as `sqliteStorageClass` says, PostgreSQL
/// in its own types.
public enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case bool(Bool)
    case uuid(UUID)
    case timestamp(Date)

    /// The value as SQLite stores it: `bool` as INTEGER 0 or 1, `uuid` as lowercase TEXT (the form RFC 9562
    /// section 4 recommends for output), `timestamp` as INTEGER whole milliseconds since 1970-01-01 UTC, rounded
    /// down and clamped to `Int64`'s range (NaN reads as 0): exact comparisons and indexing, and sub-millisecond
    /// precision, which no expiry rule needs, dropped.
    public var sqliteStorageClass: DatabaseValue {
        switch self {
        case .bool(let v): return .integer(v ? 1 : 0)
        case .uuid(let v): return .text(v.text(uppercase: false))
        case .timestamp(let v):
            let milliseconds = (v.timeIntervalSince1970 * 1000).rounded(.down)
            if milliseconds.isNaN { return .integer(0) }
            if milliseconds >= 0x1p63 { return .integer(.max) }
            if milliseconds < -0x1p63 { return .integer(.min) }
            return .integer(Int64(milliseconds))
        case .null, .integer, .real, .text, .blob: return self
        }
    }
}

/// A Swift type stored in one SQLite column.
///
/// Conformances in this module and the storage class each uses:
/// `Int64`, `Int` → `integer`; `Bool` → `bool`; `Double` → `real`; `String` → `text`; `[UInt8]`, `Data` → `blob`;
/// `UUID` → `uuid`; `Date` → `timestamp`; `Optional` → `null` when nil. Decoding accepts what either engine
/// returns (SQLite's INTEGER for a `Bool` or a `Date`, TEXT for a `UUID`).
public protocol DatabaseValueConvertible: Sendable {
    /// The value to bind.
    var databaseValue: DatabaseValue { get }
    /// Decodes a column value, or nil when it is of the wrong storage class or malformed.
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}
