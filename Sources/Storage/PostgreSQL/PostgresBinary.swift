import CLibPQ
import Foundation

/// PostgreSQL's binary wire formats for the types the schema uses
/// (https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-FORMAT-CODES): parameters are sent,
/// and results read, in binary, so nothing is printed or parsed as text on either side.
enum PostgresBinary {
    /// Type OIDs (`pg_type.oid`) of the built-in types this maps.
    enum OID {
        static let bool: Oid = 16, bytea: Oid = 17, name: Oid = 19, int8: Oid = 20, int2: Oid = 21, int4: Oid = 23
        static let text: Oid = 25, oid: Oid = 26, float4: Oid = 700, float8: Oid = 701, bpchar: Oid = 1042
        static let varchar: Oid = 1043, timestamp: Oid = 1114, timestamptz: Oid = 1184, uuid: Oid = 2950
    }

    /// Seconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 00:00:00 UTC.
    static let epochOffset: Double = 946_684_800

    /// The type and bytes a parameter is sent as; nil bytes for SQL NULL.
    static func encode(_ value: DatabaseValue) -> (type: Oid, bytes: [UInt8]?) {
        switch value {
        case .null: return (0, nil)
        case .integer(let v): return (OID.int8, bigEndian(UInt64(bitPattern: v)))
        case .real(let v): return (OID.float8, bigEndian(v.bitPattern))
        case .text(let v): return (OID.text, Array(v.utf8))
        case .blob(let v): return (OID.bytea, v)
        case .bool(let v): return (OID.bool, [v ? 1 : 0])
        case .uuid(let v): return (OID.uuid, withUnsafeBytes(of: v.uuid) { Array($0) })
        case .timestamp(let v):
            let microseconds = ((v.timeIntervalSince1970 - epochOffset) * 1_000_000).rounded(.down)
            let clamped: Int64 = microseconds.isNaN ? 0 : microseconds >= 0x1p63 ? .max
                : microseconds < -0x1p63 ? .min : Int64(microseconds)
            return (OID.timestamptz, bigEndian(UInt64(bitPattern: clamped)))
        }
    }

    /// A result column's value from its type and binary bytes; nil when the bytes do not fit the type.
    static func decode(type: Oid, bytes: UnsafeRawBufferPointer) -> DatabaseValue? {
        switch type {
        case OID.bool: return bytes.count == 1 ? .bool(bytes[0] != 0) : nil
        case OID.int8: return integer(bytes, size: 8)
        case OID.int4, OID.oid: return integer(bytes, size: 4)
        case OID.int2: return integer(bytes, size: 2)
        case OID.float8:
            guard bytes.count == 8, case .integer(let bits)? = integer(bytes, size: 8) else { return nil }
            return .real(Double(bitPattern: UInt64(bitPattern: bits)))
        case OID.float4:
            guard bytes.count == 4, case .integer(let bits)? = integer(bytes, size: 4) else { return nil }
            return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))))
        case OID.text, OID.varchar, OID.name, OID.bpchar:
            // Not repaired: a database that does not check its text (SQL_ASCII) may hold other bytes, and a value
            // read with U+FFFD in their place would be written back changed. Found by a review.
            return String(validating: bytes, as: UTF8.self).map { .text($0) }
        case OID.bytea: return .blob(Array(bytes))
        case OID.uuid:
            guard bytes.count == 16 else { return nil }
            var raw = UUID().uuid
            withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: bytes) }
            return .uuid(UUID(uuid: raw))
        case OID.timestamptz, OID.timestamp:
            guard case .integer(let microseconds)? = integer(bytes, size: 8) else { return nil }
            if microseconds == .max { return .timestamp(.distantFuture) }
            if microseconds == .min { return .timestamp(.distantPast) }
            return .timestamp(Date(timeIntervalSince1970: Double(microseconds) / 1_000_000 + epochOffset))
        default: return .blob(Array(bytes))
        }
    }

    /// A big-endian signed integer of `size` bytes, sign-extended.
    private static func integer(_ bytes: UnsafeRawBufferPointer, size: Int) -> DatabaseValue? {
        guard bytes.count == size else { return nil }
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        let shift = UInt64(64 - size * 8)
        return .integer(Int64(bitPattern: value << shift) >> Int64(shift))
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
