/// The statement cache's key: SQL text, hashed by its length and its first and last `sampledBytes` bytes rather
/// than by all of it. A sign-in looks up five statements of up to 600 bytes, and hashing them whole cost more than
/// running some of them. Keys that share length and both ends still differ under `==`, which compares everything.
struct StatementKey: Hashable {
    let sql: String

    /// Bytes hashed at each end.
    static let sampledBytes = 32

    init(_ sql: String) { self.sql = sql }

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            hasher.combine(raw.count)
            let sampled = min(Self.sampledBytes, raw.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[..<sampled]))
            hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw[(raw.count - sampled)...]))
        }
    }
}
