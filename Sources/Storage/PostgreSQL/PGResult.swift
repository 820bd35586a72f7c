import CLibPQ

/// A `PGresult` owned by this object and cleared exactly once.
final class PGResult {
    private let handle: OpaquePointer  // PGresult *

    /// Takes ownership of `handle` (a result from `PQgetResult`, which the caller must not clear).
    init(takingOwnershipOf handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { PQclear(handle) }

    var status: ExecStatusType { PQresultStatus(handle) }

    /// The server's error for this result, or nil when the command succeeded.
    func error(sql: String?) -> PostgresError? {
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_PIPELINE_SYNC, PGRES_EMPTY_QUERY:
            return nil
        default:
            let state = PQresultErrorField(handle, CLIBPQ_DIAG_SQLSTATE).map { String(cString: $0) } ?? ""
            let primary = PQresultErrorField(handle, CLIBPQ_DIAG_MESSAGE_PRIMARY).map { String(cString: $0) }
            let message = primary ?? String(cString: PQresultErrorMessage(handle))
            let aborted = status == PGRES_PIPELINE_ABORTED
            return PostgresError(sqlState: state, message: aborted ? "not run: an earlier statement failed" : message,
                                 sql: sql)
        }
    }

    var rowCount: Int { Int(PQntuples(handle)) }
    /// Rows an `INSERT`, `UPDATE` or `DELETE` changed (`PQcmdTuples`); 0 for other commands.
    var changes: Int {
        guard !String(cString: PQcmdStatus(handle)).hasPrefix("SELECT") else { return 0 }
        return Int(String(cString: PQcmdTuples(handle))) ?? 0
    }
    var columnCount: Int { Int(PQnfields(handle)) }

    /// The index of the column called `name` (case-insensitive, as SQLite's `Row` looks names up), or nil.
    func columnIndex(named name: String) -> Int? {
        let wanted = name.lowercased()
        return (0..<columnCount).first { index in
            PQfname(handle, Int32(index)).map { String(cString: $0).lowercased() } == wanted
        }
    }

    /// The value at `row`, `column` (both from 0), decoded from its binary form.
    func value(row: Int, column: Int) throws -> DatabaseValue {
        let (r, c) = (Int32(row), Int32(column))
        if PQgetisnull(handle, r, c) != 0 { return .null }
        let length = Int(PQgetlength(handle, r, c))
        guard let bytes = PQgetvalue(handle, r, c) else { return .null }
        let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
        guard let value = PostgresBinary.decode(type: PQftype(handle, c), bytes: buffer) else {
            throw PostgresError(sqlState: "", message: "column \(column) has a malformed binary value")
        }
        return value
    }
}

/// libpq: "PGresult objects are normally read-only after creation, and so can be passed around freely between
/// threads" (https://www.postgresql.org/docs/current/libpq-threading.html); this type only reads.
extension PGResult: @unchecked Sendable {}
