import Foundation
import Testing
@testable import Storage

struct DatabaseTests {
    let directory: TemporaryDirectory
    let database: Database

    init() throws {
        directory = try TemporaryDirectory()
        database = try Database(path: directory.path())
    }

    private func pragma(_ name: String) throws -> DatabaseValue? {
        try database.fetchOne(sql: "PRAGMA \(name)") { try $0.value(at: 0) }
    }

    @Test func opensWithWALForeignKeysAndTimeouts() throws {
        #expect(try pragma("journal_mode") == .text("wal"))
        #expect(try pragma("foreign_keys") == .integer(1))
        #expect(try pragma("synchronous") == .integer(1))
        #expect(database.busyWait.timeoutMilliseconds == DatabaseConfiguration.defaultBusyTimeoutMilliseconds)
        #expect(try pragma("cache_size") == .integer(-Int64(DatabaseConfiguration.defaultCacheSizeKiB)))
    }

    /// A new database, and the `-wal` and `-shm` SQLite makes beside it, are readable by their owner only, whatever
    /// the umask; an existing file keeps its mode. Found by a security review: new databases were 0644.
    /// A look at a file that may be another application's: its tables are read, and nothing is made beside it, from
    /// a relative path too and from one with the characters a URI gives meaning to.
    @Test(arguments: ["other.sqlite", "we?ird #%41 name.sqlite"])
    func inspectingAFileReadsItAndLeavesNothingBesideIt(_ name: String) throws {
        let path = directory.path(name)
        do {
            let other = try Database(path: path)
            try other.execute(sql: "CREATE TABLE posts (title TEXT)")
            try other.execute(sql: "INSERT INTO posts VALUES ('hello')")
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        for opened in [path, String(repeating: "../", count: depth) + path.dropFirst()] {
            let inspected = try Database(inspecting: opened)
            #expect(try inspected.fetchOne(sql: "SELECT title FROM posts") { try $0[0] as String } == "hello")
            #expect(throws: SQLiteError.self) { try inspected.execute(sql: "INSERT INTO posts VALUES ('no')") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == before)
        }
        #expect(throws: SQLiteError.self) { try Database(inspecting: directory.path("missing.sqlite")) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
    }

    @Test func aNewDatabaseIsTheOwnersOnly() throws {
        func mode(_ path: String) throws -> Int? {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        }
        let path = directory.path("private.sqlite")
        let fresh = try Database(path: path)
        try fresh.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try mode(path + "-shm") == 0o600)
        let shared = directory.path("shared.sqlite")
        #expect(FileManager.default.createFile(atPath: shared, contents: Data(), attributes: [.posixPermissions: 0o640]))
        _ = try Database(path: shared)
        #expect(try mode(shared) == 0o640, "an existing file keeps its mode")
        // A path that is a symlink to a file not made yet, through a second link: the file at its end is private
        // too. Found by an audit: it was made with the umask's mode.
        try FileManager.default.createDirectory(atPath: directory.path("real"), withIntermediateDirectories: true)
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: directory.path("hop.sqlite"), withDestinationPath: "real/db.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.path("hop.sqlite"))
        let linked = try Database(path: link)
        try linked.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        #expect(try mode(directory.path("real/db.sqlite")) == 0o600)
        #expect(try mode(directory.path("real/db.sqlite-wal")) == 0o600)
    }

    @Test func aNewFileGetsTheConfiguredPageSizeAndAnExistingOneKeepsItsOwn() throws {
        #expect(try pragma("page_size") == .integer(Int64(DatabaseConfiguration.defaultPageSize)))
        let path = directory.path("sized.sqlite")
        do {
            let large = try Database(path: path, configuration: .init(pageSize: 4_096))
            try large.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        }
        let reopened = try Database(path: path)
        #expect(try reopened.fetchOne(sql: "PRAGMA page_size") { try $0.value(at: 0) } == .integer(4_096))
        #expect(try reopened.fetchOne(sql: "SELECT x FROM t") { try $0[0] as Int } == 1)
    }

    @Test func syncsTheDatabaseFileOutsideTransactionsAndIgnoresMemoryDatabases() throws {
        try database.executeScript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        try database.checkpoint()
        try database.syncDatabaseFile()
        #expect(try database.fetchOne(sql: "SELECT x FROM t") { try $0[0] as Int } == 1)
        let memory = try Database(path: ":memory:")
        try memory.syncDatabaseFile()
    }

    @Test func fullSynchronousIsConfigurable() throws {
        let full = try Database(path: directory.path("full.sqlite"), configuration: .init(synchronous: .full))
        #expect(try full.fetchOne(sql: "PRAGMA synchronous") { try $0.value(at: 0) } == .integer(2))
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        try database.executeScript("CREATE TABLE t (x INTEGER)")
        let reader = try Database(path: directory.path(), readOnly: true)
        #expect(throws: SQLiteError.self) { try reader.execute(sql: "INSERT INTO t (x) VALUES (?)", arguments: [1]) }
    }

    @Test func roundTripsEveryType() throws {
        try database.executeScript("CREATE TABLE t (a, b, c, d, e, f, g, h, i, j, k)")
        let id = UUID()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let arguments: [any DatabaseValueConvertible] = [
            Int64.max, Int.min, 3.25, "héllo ✓", "", [UInt8]([0, 1, 255]), Data([9, 8]), id, date, true, String?.none,
        ]
        try database.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: arguments)
        let row = try #require(try database.fetchOne(sql: "SELECT * FROM t") { row in
            (try row[0] as Int64, try row[1] as Int, try row[2] as Double, try row[3] as String, try row[4] as String,
             try row[5] as [UInt8], try row[6] as Data, try row[7] as UUID, try row[8] as Date, try row[9] as Bool,
             try row[10] as String?)
        })
        #expect(row.0 == Int64.max && row.1 == Int.min && row.2 == 3.25)
        #expect(row.3 == "héllo ✓" && row.4 == "")
        #expect(row.5 == [0, 1, 255] && row.6 == Data([9, 8]))
        #expect(row.7 == id && row.8 == date && row.9 == true && row.10 == nil)
    }

    @Test func storesUUIDAsLowercaseTextAndDateAsMilliseconds() throws {
        try database.executeScript("CREATE TABLE t (id, at)")
        let id = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        try database.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [id, Date(timeIntervalSince1970: 1.5)])
        let stored = try database.fetchOne(sql: "SELECT id, typeof(id), at, typeof(at) FROM t") {
            (try $0[0] as String, try $0[1] as String, try $0[2] as Int64, try $0[3] as String)
        }
        #expect(stored?.0 == "0f8fad5b-d9cb-469f-a165-70867728950e" && stored?.1 == "text")
        #expect(stored?.2 == 1500 && stored?.3 == "integer")
    }

    @Test func emptyBlobAndTextAreNotNull() throws {
        try database.executeScript("CREATE TABLE t (a NOT NULL, b NOT NULL)")
        try database.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [[UInt8](), ""])
        let row = try database.fetchOne(sql: "SELECT typeof(a), typeof(b), a FROM t") {
            (try $0[0] as String, try $0[1] as String, try $0[2] as [UInt8])
        }
        #expect(row?.0 == "blob" && row?.1 == "text" && row?.2 == [])
    }

    @Test func readsColumnsByName() throws {
        try database.executeScript("CREATE TABLE t (Name TEXT, age INTEGER)")
        try database.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: ["Jane", 40])
        let row = try database.fetchOne(sql: "SELECT name, age FROM t") { (try $0["NAME"] as String, try $0["age"] as Int) }
        #expect(row?.0 == "Jane" && row?.1 == 40)
        #expect(throws: RowDecodingError.self) { try database.fetchOne(sql: "SELECT name FROM t") { try $0["missing"] as String } }
    }

    @Test func wrongTypeIsAMismatch() throws {
        try database.executeScript("CREATE TABLE t (a TEXT)")
        try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["not a number"])
        let error = try #require(throws: RowDecodingError.self) { try database.fetchOne(sql: "SELECT a FROM t") { try $0[0] as Int } }
        #expect(error.message == "column 0 cannot be read as Int" && error.sql == "SELECT a FROM t")
        #expect(throws: RowDecodingError.self) { try database.fetchOne(sql: "SELECT a FROM t") { try $0[0] as UUID } }
    }

    @Test func argumentCountMustMatch() throws {
        try database.executeScript("CREATE TABLE t (a, b)")
        #expect(throws: SQLiteError.self) { try database.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1]) }
        #expect(throws: SQLiteError.self) { try database.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1, 2, 3]) }
    }

    @Test func refusesMoreThanOneStatement() throws {
        #expect(throws: SQLiteError.self) { try database.execute(sql: "SELECT 1; SELECT 2") }
        try database.execute(sql: "SELECT 1;  ")
    }

    @Test func boundValuesAreNeverSQL() throws {
        try database.executeScript("CREATE TABLE t (a TEXT)")
        let hostile = "x'); DROP TABLE t; --"
        try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [hostile])
        #expect(try database.fetchAll(sql: "SELECT a FROM t") { try $0[0] as String } == [hostile])
    }

    @Test func cachesStatementsBySQL() throws {
        let first = try database.cachedStatement(sql: "SELECT 1")
        let second = try database.cachedStatement(sql: "SELECT 1")
        #expect(first === second)
        #expect(try database.cachedStatement(sql: "SELECT 2") !== first)
    }

    /// The cache hashes only the ends of long SQL: statements alike there, and in length, are still told apart.
    @Test func cachesStatementsThatDifferOnlyInTheMiddle() throws {
        let padding = String(repeating: " ", count: StatementKey.sampledBytes)
        let texts = ["1", "2", "3"].map { "SELECT\(padding)\($0)\(padding)AS v" }
        for _ in 0..<2 {
            #expect(try texts.map { text in try database.fetchOne(sql: text) { try $0[0] as Int } } == [1, 2, 3])
        }
        let statements = try texts.map { try database.cachedStatement(sql: $0) }
        #expect(statements[0] !== statements[1] && statements[1] !== statements[2])
        #expect(try database.cachedStatement(sql: texts[1]) === statements[1])
    }

    @Test func reportsChangesAndRowID() throws {
        try database.executeScript("CREATE TABLE t (a)")
        try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [1])
        try database.execute(sql: "INSERT INTO t VALUES (?)", arguments: [2])
        #expect(database.lastInsertedRowID == 2)
        try database.execute(sql: "UPDATE t SET a = a + 1")
        #expect(database.changes == 2)
    }
}

extension DatabaseTests {
    @Test func extremeDatesAreClampedNotTrapped() throws {
        #expect(Date(timeIntervalSince1970: .infinity).databaseValue.sqliteStorageClass == .integer(.max))
        #expect(Date(timeIntervalSince1970: -.infinity).databaseValue.sqliteStorageClass == .integer(.min))
        #expect(Date(timeIntervalSince1970: .nan).databaseValue.sqliteStorageClass == .integer(0))
        #expect(Date(timeIntervalSince1970: -0.0005).databaseValue.sqliteStorageClass == .integer(-1))
        #expect(Date.distantFuture.databaseValue.sqliteStorageClass == .integer(Int64(Date.distantFuture.timeIntervalSince1970 * 1000)))
    }
}
