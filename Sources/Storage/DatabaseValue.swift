/// One SQLite value, in one of its five storage classes (https://sqlite.org/datatype3.html).
public enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type stored in one SQLite column.
///
/// Conformances in this module and the storage class each uses:
/// `Int64`, `Int`, `Bool` (0 or 1) → INTEGER; `Double` → REAL; `String` → TEXT; `[UInt8]`, `Data` → BLOB;
/// `UUID` → TEXT, lowercase (`"0f8fad5b-d9cb-469f-a165-70867728950e"`);
/// `Date` → INTEGER milliseconds since 1970-01-01 UTC (exact comparisons and indexing; sub-millisecond
/// precision is dropped, which no expiry rule needs); `Optional` → NULL when nil.
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
