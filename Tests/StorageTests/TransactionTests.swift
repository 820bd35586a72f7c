import Foundation
import Testing
@testable import Storage

struct TransactionTests {
    struct Failure: Error {}

    let directory: TemporaryDirectory
    let database: Database

    init() throws {
        directory = try TemporaryDirectory()
        database = try Database(path: directory.path())
        try database.executeScript("CREATE TABLE t (a INTEGER)")
    }

    private func values() throws -> [Int] { try database.fetchAll(sql: "SELECT a FROM t ORDER BY a") { try $0[0] } }

    @Test func commitsWhenTheBodyReturns() throws {
        let result = try database.transaction { try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1]); return 7 }
        #expect(result == 7)
        #expect(try values() == [1])
        #expect(!database.isInsideTransaction)
    }

    @Test func rollsBackWhenTheBodyThrows() throws {
        #expect(throws: Failure.self) {
            try database.transaction {
                try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
                throw Failure()
            }
        }
        #expect(try values() == [])
        #expect(!database.isInsideTransaction)
    }

    @Test func rollsBackWhenAStatementFails() throws {
        try database.executeScript("CREATE UNIQUE INDEX t_a ON t (a)")
        #expect(throws: SQLiteError.self) {
            try database.transaction {
                try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
                try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
            }
        }
        #expect(try values() == [])
    }

    @Test func nestedTransactionIsASavepoint() throws {
        try database.transaction {
            try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
            #expect(throws: Failure.self) {
                try database.transaction {
                    try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [2])
                    throw Failure()
                }
            }
            try database.savepoint { try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [3]) }
        }
        #expect(try values() == [1, 3])
    }

    @Test func otherConnectionsSeeOnlyCommittedData() throws {
        let reader = try Database(path: directory.path(), readOnly: true)
        try database.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
        try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
        #expect(try reader.fetchAll(sql: "SELECT a FROM t") { try $0[0] as Int } == [])
        try database.execute(sql: "COMMIT TRANSACTION")
        #expect(try reader.fetchAll(sql: "SELECT a FROM t") { try $0[0] as Int } == [1])
    }
}
