// Helper for StorageTests' crash test: streams committed writes to a database and prints each id after its
// commit, until it is killed. Usage: StorageCrashChild <database path> <normal|full> <first id>
import Foundation
import Storage

let arguments = CommandLine.arguments
guard arguments.count == 4, let firstID = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: StorageCrashChild <database path> <normal|full> <first id>\n".utf8))
    exit(64)
}
/// Large rows make each commit take longer, widening the window a wrong "committed" report would fall into.
let payloadSize = 16 * 1024
let synchronous: DatabaseConfiguration.Synchronous = arguments[2] == "full" ? .full : .normal
let pool = try DatabasePool(path: arguments[1], configuration: DatabaseConfiguration(synchronous: synchronous))
try await pool.write { db in
    try db.executeScript("CREATE TABLE IF NOT EXISTS crash (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
}
FileHandle.standardOutput.write(Data("ready\n".utf8))

let writers = 8
await withTaskGroup(of: Void.self) { group in
    for writer in 0..<writers {
        group.addTask {
            var id = firstID + writer
            while true {
                let value = id
                do {
                    try await pool.write { db in
                        try db.execute(sql: "INSERT INTO crash (id, payload) VALUES (?, ?)",
                                       arguments: [value, [UInt8](repeating: UInt8(value & 0xFF), count: payloadSize)])
                    }
                } catch {
                    FileHandle.standardError.write(Data("write \(value) failed: \(error)\n".utf8))
                    exit(1)
                }
                // One write(2) per line, so lines from concurrent writers never interleave.
                FileHandle.standardOutput.write(Data("\(value)\n".utf8))
                id += writers
            }
        }
    }
}
