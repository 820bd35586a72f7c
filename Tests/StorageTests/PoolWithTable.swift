@testable import Storage

/// A pool on a fresh file in `directory` with the one table the pool tests write to, `t (a INTEGER PRIMARY KEY)`.
func makePoolWithTable(in directory: TemporaryDirectory,
                       _ configuration: DatabaseConfiguration = DatabaseConfiguration()) async throws -> DatabasePool {
    let pool = try DatabasePool(path: directory.path(), configuration: configuration)
    try await pool.write { try $0.executeScript("CREATE TABLE t (a INTEGER PRIMARY KEY)") }
    return pool
}

/// The rows of `t`, read on a reader connection.
func rowCount(_ pool: DatabasePool) async throws -> Int {
    try await pool.read { try $0.fetchOne(sql: "SELECT count(*) FROM t") { try $0[0] as Int } ?? 0 }
}
